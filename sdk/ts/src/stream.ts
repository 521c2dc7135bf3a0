// Hand-written (not generated): reading the body of GET /stream, a Server-Sent Events stream
// (text/event-stream). OpenAPI 3.0 describes the data of each event (the Stream…Event schemas,
// by the event names of StreamEventType) but not the framing, so the framing is read here, as
// the WHATWG HTML standard's "event stream interpretation" says. Browsers have EventSource;
// this reader serves Node and any fetch whose body is a ReadableStream, and can send the
// Authorization header EventSource cannot.
import type { components } from "./schema.js";

type Schemas = components["schemas"];

/** The data of each event, by its name. */
export type StreamEventData = {
  notification: Schemas["StreamNotificationEvent"];
  message: Schemas["StreamMessageEvent"];
  conversation: Schemas["StreamConversationEvent"];
  post: Schemas["StreamPostEvent"];
  delete: Schemas["StreamDeleteEvent"];
  refetch: Schemas["StreamRefetchEvent"];
};

/** One event: its id ("" for an event without one, such as refetch), name and parsed data. */
export type StreamEvent = {
  [K in keyof StreamEventData]: { id: string; event: K; data: StreamEventData[K] };
}[keyof StreamEventData];

/** The events of a stream body, in order; comments (heartbeats) and retry hints are skipped. */
export async function* readStream(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let buffered = "";
  let id = "";
  let event = "";
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + (buffered.startsWith("\r\n", nl) ? 2 : 1));
      if (line === "") {
        if (data.length > 0) {
          yield { id, event: (event || "message") as StreamEvent["event"], data: JSON.parse(data.join("\n")) } as StreamEvent;
        }
        id = "";
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  }
}
