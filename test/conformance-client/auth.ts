import type { McpClientOptions } from "../../src/client";
export async function runAuthScenario(name: string, url: string, options: McpClientOptions): Promise<void> {
  void url;
  void options;
  throw new Error(`auth scenario ${name} not implemented yet`);
}
