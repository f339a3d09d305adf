/** Hibernatable WebSocket housekeeping shared by the hub and the session objects. */

/** Completes the close handshake the peer started (1005/1006 are not codes one may send back). */
export function closeFromPeer(ws: WebSocket, code: number): void {
  try {
    ws.close(code === 1005 || code === 1006 ? 1000 : code, "closed");
  } catch {
    // already closed
  }
}
