/** The part of Node's `node:sqlite` the unit tests use: the project carries no Node type package. */
declare module "node:sqlite" {
  export type SQLInputValue = null | number | bigint | string | Uint8Array;
  export class DatabaseSync {
    constructor(path: string);
    exec(sql: string): void;
    prepare(sql: string): { all(...params: SQLInputValue[]): unknown[]; get(...params: SQLInputValue[]): unknown };
  }
}
