// The MCP SDK and zod, as `assetgen mcp` uses them, from one module. The build replaces tsc's
// output of this file with one bundle of both (scripts/bundle-entry.mjs): loading them file by
// file (~350 module files) was most of the time before the server could answer `initialize`.
// In the bundle, ajv (the SDK's validator of elicitation answers) and zod-to-json-schema (for zod 3
// schemas) load on first use only; assetgen's tools need neither to start.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
export * as z from 'zod';
