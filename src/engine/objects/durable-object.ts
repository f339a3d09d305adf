/**
 * The platform's Durable Object base class, imported from the platform in this one place: the bundle
 * then holds one import of it, not one per class, and a module left out of a bundle (the task runtime
 * of an app without task tools) leaves no import of its own behind.
 */
export { DurableObject } from "cloudflare:workers";
