/** The parts of Node the unit tests of scripts use (files, processes): the project carries no Node type package. */
declare module "node:fs" {
  export function mkdirSync(path: string, options?: { recursive?: boolean }): void;
  export function mkdtempSync(prefix: string): string;
  export function rmSync(path: string, options?: { recursive?: boolean; force?: boolean }): void;
  export function truncateSync(path: string, length: number): void;
  export function writeFileSync(path: string, data: string): void;
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function symlinkSync(target: string, path: string): void;
}
declare module "node:os" {
  export function tmpdir(): string;
}
declare module "node:path" {
  const path: { join(...parts: string[]): string; resolve(...parts: string[]): string };
  export default path;
}
declare module "node:child_process" {
  export function spawnSync(
    command: string,
    args: string[],
    options: { cwd?: string; encoding: "utf8" },
  ): { status: number | null; stdout: string; stderr: string };
}
