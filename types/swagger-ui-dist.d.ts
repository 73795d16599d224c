declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
