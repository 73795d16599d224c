/**
 * The API adapters beside V2, one line each: the composition point of both processes. api/app.ts
 * mounts every adapter exported here before V2 (each claims a path prefix of its own, so their
 * order among themselves does not matter); the worker (workers/main.ts) registers their webhook
 * formats. An adapter is a leaf folder that only translates, and the layer lint lets nothing else
 * import it: retiring one is deleting its folder, its queries module and its line here.
 */
export {}; // a module even with no adapter left
export { v1Api } from './v1'; // legacy V1 (docs/v1.md): api/v1/ and db/queries/v1.ts
