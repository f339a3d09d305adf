// GitHub's REST API in the compact form `npm run openapi` writes (the e2e step writes it to
// test/.tmp/openapi/ before it starts the fixture). A .js door with a .d.ts beside it, so that
// TypeScript reads the type in github-document.d.ts and never infers one from 1.4 MB of JSON.
export { default } from "../../.tmp/openapi/github.openapi.json";
