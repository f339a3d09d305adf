/** Shared bits of the conformance fixtures: base64 media and a sleep. */

/** A 1x1 PNG. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A tiny WAV. */
export const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The text of a sampling result's content, whatever its shape. */
export function sampledText(result: { content?: unknown } | undefined): string {
  const content = result?.content as { type?: string; text?: string } | { type?: string; text?: string }[] | undefined;
  const first = Array.isArray(content) ? content[0] : content;
  return typeof first?.text === "string" ? first.text : JSON.stringify(content ?? null);
}
