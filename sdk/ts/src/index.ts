// The TypeScript client of the social network's v1 API. schema.ts is generated from openapi.yaml
// by openapi-typescript (never edit it: `npm run generate`); calls go through openapi-fetch, so
// paths, parameters, bodies, responses and problem documents are all typed by the contract.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export { readStream, type StreamEvent, type StreamEventData } from "./stream.js";
export type Schemas = components["schemas"];
export type Problem = components["schemas"]["Problem"];

/** A client for baseUrl (e.g. "https://social.example/api/v1") acting with token. */
export function createSocialClient(baseUrl: string, token: string, fetchImpl?: typeof fetch) {
  const client = createClient<paths>({ baseUrl, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${token}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

export type SocialClient = ReturnType<typeof createSocialClient>;
