/** Helpers that build content blocks, so app code reads like what it returns. */
import type { Annotations, BlobResourceContents, Content, TextResourceContents } from "./types";

export const text = (value: string, annotations?: Annotations): Content =>
  annotations ? { type: "text", text: value, annotations } : { type: "text", text: value };

/** An image block; `data` is base64. */
export const image = (data: string, mimeType: string, annotations?: Annotations): Content =>
  annotations ? { type: "image", data, mimeType, annotations } : { type: "image", data, mimeType };

/** An audio block; `data` is base64. */
export const audio = (data: string, mimeType: string, annotations?: Annotations): Content =>
  annotations ? { type: "audio", data, mimeType, annotations } : { type: "audio", data, mimeType };

/** A resource embedded in a result, with its contents. */
export const embedded = (resource: TextResourceContents | BlobResourceContents, annotations?: Annotations): Content =>
  annotations ? { type: "resource", resource, annotations } : { type: "resource", resource };

/** A link to a resource the client may read later. */
export const resourceLink = (link: Omit<Extract<Content, { type: "resource_link" }>, "type">): Content => ({
  type: "resource_link",
  ...link,
});

/** Base64 of bytes or of a UTF-8 string, for blobs and image/audio data. */
export function base64(input: Uint8Array | string): string {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
