// node:http's timers, one per call and one per new socket (transport.ts): the connect timeout, the
// headers deadline, then the body's longest silence. Errors carry the codes failures.ts maps.
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { WireRequest } from './transport-records.js';

/** A failure with a code the error mapping knows (see failures.ts). */
export function timeoutError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * A new socket gets `ms` to connect, or fails with CONNECT_TIMEOUT (its request sees the error); a
 * pooled one is connected already. Wrapping the agent's own createConnection arms the timer once
 * per socket instead of a 'socket' listener on every request.
 */
export function withConnectTimeout<A extends http.Agent>(agent: A, ms: number): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    if (!socket || !(socket as Socket).connecting) return socket;
    const timer = setTimeout(() => socket.destroy(timeoutError(`Could not connect within ${ms} ms.`, 'CONNECT_TIMEOUT')), ms);
    const clear = (): void => clearTimeout(timer);
    socket.once('connect', clear);
    socket.once('close', clear);
    return socket;
  };
  return agent;
}

/**
 * Fails the body when the socket brings nothing for `bodyTimeoutMs` (without putting the body in
 * flowing mode). Decided once node's parser is done with the bytes in hand (a microtask: no I/O
 * runs before it): a body already whole, the usual small answer, cannot stall and needs no watch.
 */
export function watchSilence(response: http.IncomingMessage, timer: NodeJS.Timeout, wire: WireRequest): void {
  queueMicrotask(() => {
    if (response.complete || response.destroyed) {
      clearTimeout(timer);
      return;
    }
    let silence = timer;
    if (wire.bodyTimeoutMs === wire.headersTimeoutMs) silence.refresh();
    else {
      clearTimeout(timer);
      silence = setTimeout(
        () => response.destroy(timeoutError(`The answer stalled for ${wire.bodyTimeoutMs} ms.`, 'BODY_TIMEOUT')),
        wire.bodyTimeoutMs,
      );
    }
    const socket = response.socket;
    const onData = (): void => void silence.refresh();
    socket.on('data', onData);
    response.once('close', () => {
      clearTimeout(silence);
      socket.off('data', onData);
    });
  });
}
