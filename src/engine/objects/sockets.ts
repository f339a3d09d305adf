/** Hibernatable WebSocket housekeeping shared by the hub and the session objects. */

/**
 * A new hibernatable socket with these tags: its server end, to send on, and the 101 answer that
 * hands its other end to the Worker.
 */
export function acceptSocket(ctx: DurableObjectState, tags: string[], headers?: Record<string, string>): [WebSocket, Response] {
  const [peer, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  ctx.acceptWebSocket(server, tags);
  return [server, new Response(null, { status: 101, webSocket: peer, headers })];
}

/** Completes the close handshake the peer started (1005/1006 are not codes one may send back). */
export function closeFromPeer(ws: WebSocket, code: number): void {
  try {
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
  } catch {
    // already closed
  }
}
