import { createHash, randomUUID } from 'node:crypto';

/** A chain transaction id (64 lower-case hex, the canonical form) derived from a label: the same label, the same id. */
export const txHashOf = (label: string = randomUUID()) => createHash('sha256').update(label).digest('hex');
