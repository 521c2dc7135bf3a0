// Runtime validation of every response body against the contract, the way docs/integrators.md
// tells integrators to set it up: Ajv 8 with ajv-formats at their defaults (ajv-formats'
// `date-time` accepts the numeric offset the API writes, `+00:00`), the schemas taken as they are
// from the contract the server serves (`GET /openapi.json`). OpenAPI 3.0's `nullable` is an Ajv
// keyword already; the Schema Object's other non-JSON-Schema keywords (`example`, the `x-`
// extensions) are declared as annotations so Ajv's strict mode still rejects anything else.
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { Middleware } from "openapi-fetch";

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = { [k: string]: Json } | Json[] | string | number | boolean | null;
type Response = { $ref?: string; content?: Record<string, Json> };
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { responses: Record<string, Response>; schemas: Record<string, Json> };
};

/** A body the contract does not allow, with Ajv's account of why. */
export class ContractViolation extends Error {}

/** Every keyword of a Schema Object that is no JSON Schema keyword, found in doc. */
function annotations(doc: Json, found = new Set<string>(["example"])): Set<string> {
  if (Array.isArray(doc)) doc.forEach((d) => annotations(d, found));
  else if (doc !== null && typeof doc === "object")
    for (const [k, v] of Object.entries(doc)) {
      if (k.startsWith("x-")) found.add(k);
      annotations(v, found);
    }
  return found;
}

/**
 * A middleware that validates the JSON body of every response against the schema the contract
 * gives its operation and status, and throws ContractViolation on the first one that fails.
 * A status the operation does not document is a violation too.
 */
export async function contractValidator(
  baseUrl: string,
  token: string,
): Promise<Middleware & { validated: number; validateEvent: (event: string, data: unknown) => void }> {
  const res = await fetch(`${baseUrl}/openapi.json`, { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
  const doc = (await res.json()) as Doc;
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
  addFormats(ajv);
  // The schemas are reached by JSON pointer into the contract: its paths and components are
  // containers, not keywords, so they are declared as annotations too.
  ajv.addVocabulary([...annotations(doc as unknown as Json), "paths", "components"]);
  ajv.addSchema({ paths: doc.paths, components: doc.components }, "contract");
  const compiled = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

  const middleware = {
    validated: 0,
    // An event of GET /stream: its data against the schema x-stream-events names for it.
    validateEvent(event: string, data: unknown): void {
      const where = `GET /stream event ${event}`;
      const events = (doc.paths["/stream"]?.["get"]?.responses["200"]?.content?.["text/event-stream"] as
        { "x-stream-events"?: Record<string, { $ref: string }> } | undefined)?.["x-stream-events"];
      const ref = events?.[event]?.$ref;
      if (!ref) throw new ContractViolation(`${where}: not documented in x-stream-events`);
      let validate = compiled.get(where);
      if (!validate) {
        validate = ajv.compile({ $ref: `contract${ref}` });
        compiled.set(where, validate);
      }
      if (!validate(data)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`);
        throw new ContractViolation(`${where}: data violates the contract: ${errors.join("; ")}`);
      }
      middleware.validated++;
    },
    async onResponse({ request, response, schemaPath }: Parameters<NonNullable<Middleware["onResponse"]>>[0]) {
      const method = request.method.toLowerCase();
      const where = `${request.method} ${schemaPath} → ${response.status}`;
      const op = doc.paths[schemaPath]?.[method];
      if (!op) throw new ContractViolation(`${where}: no such operation in the contract`);
      const status = String(response.status);
      if (!(status in op.responses)) throw new ContractViolation(`${where}: status not documented`);
      const type = (response.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
      if (!type.endsWith("json")) return undefined;
      const key = `${schemaPath} ${method} ${status} ${type}`;
      let validate = compiled.get(key);
      if (!validate) {
        // The response may be a $ref to components/responses; Ajv resolves it like any other.
        let resp = op.responses[status]!;
        let base = `#/${pointer("paths", schemaPath, method, "responses", status)}`;
        if (resp.$ref) {
          base = resp.$ref;
          const name = resp.$ref.split("/").pop()!;
          resp = doc.components.responses[name]!;
        }
        if (!resp.content?.[type]) throw new ContractViolation(`${where}: ${type} not documented`);
        validate = ajv.compile({ $ref: `contract${base}/${pointer("content", type, "schema")}` });
        compiled.set(key, validate);
      }
      const body: unknown = await response.clone().json();
      if (!validate(body)) {
        const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}`);
        throw new ContractViolation(`${where}: body violates the contract: ${errors.join("; ")}`);
      }
      middleware.validated++;
      return undefined;
    },
  };
  return middleware;
}
