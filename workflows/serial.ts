/** Runs message handlers one at a time, in arrival order, so two commands never interleave on a deal. */
export function serialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return function serial<T>(step: () => Promise<T>): Promise<T> {
    const run = tail.then(step);
    tail = run.catch(() => undefined);
    return run;
  };
}
