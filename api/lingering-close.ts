/**
 * Lingering close, as nginx does it. An answer given while the client is still sending its body
 * (413 before reading, an early 401/403/415/429) is followed by a close. Closing a socket whose
 * receive side still holds unread bytes makes the kernel send a reset instead of a FIN; the reset
 * can reach the client before it has read the answer, and a client that is still writing sees a
 * broken pipe (Node's fetch: EPIPE / ECONNRESET, never the 413). So after such an answer the API
 * ends its side of the connection (FIN after the answer), then keeps reading and discarding what
 * still arrives until the body is complete or the client closes its side, and only then closes.
 *
 * Bounded, since the client may be hostile: at most `maxBytes` of the body discarded, at most
 * `maxMs` after the answer in all, and at most `idleMs` without a byte; beyond any bound the connection is
 * closed at once (a reset if the client is still sending, which it then has earned).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config';

export interface LingeringClose {
  /** Body bytes read and discarded once the request was refused unread; 0 turns lingering off. */
  maxBytes: number;
  /** The longest the connection stays open after the answer. */
  maxMs: number;
  /** The longest it waits for the client's next bytes. */
  idleMs: number;
}

export const lingeringCloseOf = (config: Pick<Config, 'LINGERING_CLOSE_MAX_BYTES' | 'LINGERING_CLOSE_MAX_MS' | 'LINGERING_CLOSE_IDLE_MS'>): LingeringClose => ({
  maxBytes: config.LINGERING_CLOSE_MAX_BYTES,
  maxMs: config.LINGERING_CLOSE_MAX_MS,
  idleMs: config.LINGERING_CLOSE_IDLE_MS,
});

const armed = new WeakSet<Socket>();

/**
 * Makes the close that follows the answer to `req` a lingering one. Node's HTTP server closes a
 * connection after an answer with `Connection: close` by calling the socket's `destroySoon()`
 * (end, then destroy once the answer is flushed); this socket's destroySoon lingers in between.
 *
 * The body is drained from here on, through a listener of our own: Node would otherwise "dump" an
 * unread request when the answer is finished, and a dumped request's bytes are dropped inside the
 * parser where nothing can count them.
 */
export function lingerAfterAnswer(req: IncomingMessage, limits: LingeringClose): void {
  const socket = req.socket as Socket | null;
  if (!socket || limits.maxBytes === 0 || limits.maxMs === 0 || armed.has(socket)) return;
  armed.add(socket);
  const state = { discarded: 0, onChunk: undefined as (() => void) | undefined };
  req.on('data', (chunk: Buffer) => {
    state.discarded += chunk.length;
    state.onChunk?.();
  });
  // A body reader that stopped at its limit paused the request (and through it the socket).
  req.resume();
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (req.readableEnded || socket.destroyed || state.discarded > limits.maxBytes) destroySoon();
    else linger(socket, req, limits, state);
  };
}

function linger(socket: Socket, req: IncomingMessage, limits: LingeringClose, state: { discarded: number; onChunk: (() => void) | undefined }): void {
  let finished = false;
  const stop = () => {
    if (finished) return false;
    finished = true;
    clearTimeout(total);
    clearTimeout(idle);
    state.onChunk = undefined;
    req.off('end', drained);
    socket.off('end', drained);
    socket.off('close', stopOnly);
    return true;
  };
  const stopOnly = () => void stop();
  // Everything the client sent has been read: closing now sends a FIN, no reset. The answer
  // is flushed first (it normally is already; the total bound still applies while it is not).
  const drained = () => {
    if (!stop()) return;
    if (socket.writableFinished) socket.destroy();
    else {
      socket.once('finish', () => socket.destroy());
      setTimeout(() => socket.destroy(), limits.maxMs).unref();
    }
  };
  // A bound is reached: close at once, whatever is still in flight.
  const cut = () => {
    if (stop()) socket.destroy();
  };
  const total = setTimeout(cut, limits.maxMs);
  const idle = setTimeout(cut, limits.idleMs);
  total.unref();
  idle.unref();
  state.onChunk = () => {
    if (state.discarded > limits.maxBytes) cut();
    else idle.refresh();
  };
  req.once('end', drained);
  socket.once('end', drained);
  socket.once('close', stopOnly);
  // The answer, then our FIN; the client's bytes keep coming in and are dropped.
  if (socket.writable) socket.end();
  req.resume();
}
