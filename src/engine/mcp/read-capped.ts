/**
 * A body read chunk by chunk and dropped as soon as it passes a limit, so a peer cannot make us hold
 * more than we accept. The server's edge (a request of unknown length) and the client's webhook
 * receiver both read bodies this way.
 */
export async function readCapped(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}
