/** The part of Node's `node:http` the client's socket tests use: the project carries no Node type package. */
declare module "node:http" {
  export interface IncomingMessage {
    method?: string;
    url?: string;
    headers: Record<string, string | string[] | undefined>;
    on(event: "data", listener: (chunk: Uint8Array) => void): this;
    on(event: "end", listener: () => void): this;
  }
  export interface ServerResponse {
    socket: { resetAndDestroy(): void; destroy(): void } | null;
    writeHead(status: number, headers?: Record<string, string>): this;
    write(chunk: string): boolean;
    end(chunk?: string): this;
  }
  export interface Server {
    listen(port: number, host: string, callback: () => void): this;
    address(): { port: number } | string | null;
    close(callback: (err?: Error) => void): this;
  }
  export function createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
}
