// An integrator's first session through the TypeScript SDK against a live server: read the index
// and /me, publish a post, read it back (and conditionally: 304), page through the feed to the
// end, react, comment, publish a poll and vote in it, hold the event stream (another member's
// reaction arrives as a notification event; a comment made while disconnected arrives on resume
// with Last-Event-ID), follow and unfollow, then hit a 404 and a 422 and read the problem
// bodies with typed access. It cleans up after itself (reactions and posts deleted, follow
// toggled twice).
//
//   BASE_URL=http://localhost:8080/api/v1 TOKEN=snw_... OTHER_TOKEN=snw_... [FOLLOW=bob] [STREAM_BASE_URL=...] node dist/session.js
//
// OTHER_TOKEN is a write token of another member, who reacts and comments for the stream step;
// STREAM_BASE_URL is where the stream is opened (default BASE_URL).
// Every response body is validated against the contract the server serves (src/validate.ts).
// Prints one line per check and closes with "N passed, N failed"; exits 1 if a check failed.
import { randomUUID } from "node:crypto";
import { createSocialClient, readStream, type Problem, type StreamEvent } from "./index.js";
import { contractValidator } from "./validate.js";

const base = process.env.BASE_URL ?? "";
const token = process.env.TOKEN ?? "";
const otherToken = process.env.OTHER_TOKEN ?? "";
const streamBase = process.env.STREAM_BASE_URL || base;
const follow = process.env.FOLLOW || "bob";
if (!base || !token || !otherToken) {
  console.error("usage: BASE_URL=https://host/api/v1 TOKEN=snw_... OTHER_TOKEN=snw_... [FOLLOW=handle] [STREAM_BASE_URL=...] node dist/session.js");
  process.exit(2);
}

let passed = 0;
let failed = 0;
function check(ok: boolean, what: string): boolean {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? "ok   " : "FAIL "} ${what}`);
  return ok;
}
class Stop extends Error {}
function must(ok: boolean, what: string): asserts ok {
  if (!check(ok, what)) throw new Stop(what);
}

const api = createSocialClient(base, token);
// Every response body is validated against the served contract (Ajv + ajv-formats, their
// defaults); a body that violates it fails the session.
const validator = await contractValidator(base, token);
api.use(validator);
const other = createSocialClient(base, otherToken);
other.use(validator);
const streamer = createSocialClient(streamBase, token);
streamer.use(validator);

async function run(): Promise<void> {
  const idx = await api.GET("/");
  must(idx.data !== undefined, `GET / answers the index (${idx.response.status})`);
  const index = idx.data.data;
  check(index.version !== "" && /^[0-9a-f]{64}$/.test(index.openapi_sha256) && index.endpoints.length > 0,
    `index: version ${index.version}, openapi_sha256 ${index.openapi_sha256.slice(0, 12)}…, ${index.endpoints.length} endpoints`);
  check((idx.response.headers.get("Link") ?? "").includes('rel="service-desc"'), 'index links the contract with rel="service-desc"');

  const me = await api.GET("/me");
  must(me.data !== undefined, `GET /me (${me.response.status})`);
  const handle = me.data.data.handle;
  check(me.response.headers.get("X-RateLimit-Remaining") !== null, `/me: @${handle}, rate-limit headers present`);

  const body = `Contract session ${new Date().toISOString()} #sdk`;
  const created = await api.POST("/posts", {
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: { body, visibility: "public" },
  });
  must(created.data !== undefined, `POST /posts (${created.response.status})`);
  const post = created.data.data;
  check(post.body === body && created.response.headers.get("Location") !== null, `created post ${post.id} with a Location`);
  try {
    const got = await api.GET("/posts/{id}", { params: { path: { id: post.id } } });
    const etag = got.response.headers.get("ETag");
    must(got.data !== undefined && etag !== null, `GET /posts/${post.id} with an ETag (${got.response.status})`);
    const again = await api.GET("/posts/{id}", { params: { path: { id: post.id }, header: { "If-None-Match": etag } } });
    check(again.response.status === 304 && again.data === undefined, `GET /posts/${post.id} If-None-Match ${etag}: 304 (${again.response.status})`);

    let pages = 0;
    let items = 0;
    let sawPost = false;
    let cursor: string | undefined;
    for (;;) {
      const page = await api.GET("/feed", { params: { query: { per_page: 5, ...(cursor ? { cursor } : {}) } } });
      if (!check(page.data !== undefined, `GET /feed page ${pages + 1} (${page.response.status})`) || !page.data) break;
      pages++;
      items += page.data.data.length;
      sawPost ||= page.data.data.some((p) => p.id === post.id);
      const meta = page.data.meta;
      if (!meta.has_more) {
        check(meta.next_cursor === null && meta.next_url === null, `feed ends after ${pages} pages, ${items} posts`);
        break;
      }
      if (!check(meta.next_cursor !== null && pages < 200, `page ${pages} has a next cursor`) || meta.next_cursor === null) break;
      cursor = meta.next_cursor;
    }
    check(sawPost, "the new post is in the home feed");

    const react = await api.POST("/posts/{id}/react", { params: { path: { id: post.id } }, body: { type: "love" } });
    check(react.data?.data.reaction === "love", `POST /posts/${post.id}/react love (${react.response.status})`);
    const unreact = await api.DELETE("/posts/{id}/react", { params: { path: { id: post.id } } });
    check(unreact.data !== undefined && unreact.data.data.reaction === null, `DELETE /posts/${post.id}/react (${unreact.response.status})`);

    const comment = await api.POST("/posts/{id}/comments", { params: { path: { id: post.id } }, body: { body: "First comment from the TypeScript SDK" } });
    check(comment.data !== undefined, `POST /posts/${post.id}/comments (${comment.response.status})`);
    const comments = await api.GET("/posts/{id}/comments", { params: { path: { id: post.id } } });
    check(comments.data?.data.length === 1, `GET /posts/${post.id}/comments lists it (${comments.response.status})`);

    await poll();
    await stream(post.id);

    const first = await api.POST("/users/{handle}/follow", { params: { path: { handle: follow } } });
    must(first.data !== undefined, `POST /users/${follow}/follow (${first.response.status})`);
    const second = await api.POST("/users/{handle}/follow", { params: { path: { handle: follow } } });
    check(second.data?.data.following === !first.data.data.following,
      `toggling @${follow} twice: following ${first.data.data.following} then ${second.data?.data.following}`);

    const missing = await api.GET("/posts/{id}", { params: { path: { id: 9007199254740991 } } });
    if (check(missing.response.status === 404 && missing.error !== undefined, `GET a missing post: 404 problem (${missing.response.status})`)) {
      const p: Problem = missing.error!;
      check(p.code === "not_found" && p.status === 404 && p.request_id !== "", `404 problem: code ${p.code}, status ${p.status}, request_id ${p.request_id}`);
    }
    const self = await api.POST("/users/{handle}/follow", { params: { path: { handle } } });
    if (check(self.response.status === 422 && self.error !== undefined, `follow yourself: 422 problem (${self.response.status})`)) {
      const p: Problem = self.error!;
      check(p.code === "cannot_follow_self" && p.status === 422 && p.detail !== "", `422 problem: code ${p.code}, detail "${p.detail}"`);
    }
  } finally {
    const del = await api.DELETE("/posts/{id}", { params: { path: { id: post.id } } });
    check(del.response.status === 204, `DELETE /posts/${post.id} (${del.response.status})`);
  }
}

// Publishes a post with a poll, votes in it, reads the post back with the vote (voted, own_votes,
// the counts), sees a second vote refused with already_voted, and deletes the post.
async function poll(): Promise<void> {
  const created = await api.POST("/posts", {
    params: { header: { "Idempotency-Key": randomUUID() } },
    body: { body: "Contract session poll #sdk", poll: { question: "Tabs or spaces?", options: ["Tabs", "Spaces"], expires_in: 3600 } },
  });
  const p = created.data?.data;
  if (!check(p?.poll != null, `POST /posts with a poll (${created.response.status})`) || !p?.poll) return;
  try {
    check(p.type === "poll" && p.poll.options.length === 2 && !p.poll.voted && p.poll.own_votes.length === 0,
      `post ${p.id} is a poll: ${p.poll.options.length} options, not voted`);
    const voted = await api.POST("/posts/{id}/poll/votes", {
      params: { path: { id: p.id }, header: { "Idempotency-Key": randomUUID() } },
      body: { choices: [1] },
    });
    check(voted.data?.data.voted === true && voted.data.data.own_votes.join() === "1",
      `POST /posts/${p.id}/poll/votes [1]: voted (${voted.response.status})`);
    const got = await api.GET("/posts/{id}", { params: { path: { id: p.id } } });
    const read = got.data?.data.poll;
    check(read != null && read.voted && read.own_votes.join() === "1" && read.votes_count === 1 && read.options[1]?.votes === 1,
      `the poll reads back with the vote: voted ${read?.voted}, own_votes [${read?.own_votes}], votes_count ${read?.votes_count}`);
    const again = await api.POST("/posts/{id}/poll/votes", { params: { path: { id: p.id } }, body: { choices: [0] } });
    if (check(again.response.status === 422 && again.error !== undefined, `a second vote: 422 problem (${again.response.status})`)) {
      const e: Problem = again.error!;
      check(e.errors.length === 1 && e.errors[0]?.code === "already_voted", `422 problem: errors ${JSON.stringify(e.errors)}`);
    }
  } finally {
    const del = await api.DELETE("/posts/{id}", { params: { path: { id: p.id } } });
    check(del.response.status === 204, `DELETE /posts/${p.id} (${del.response.status})`);
  }
}

// Opens the caller's event stream, has the other member react to the post and reads the
// notification event (its data validated against the schema x-stream-events names); closes the
// stream, has the other member comment, resumes with the last event's id and reads the missed
// comment's notification (and no refetch). The reaction is removed after; the comment goes with
// the post.
async function stream(post: number): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 30_000);
  const open = async (last?: string) => {
    const res = await streamer.GET("/stream", {
      params: { header: last ? { "Last-Event-ID": last } : {} },
      parseAs: "stream",
      signal: abort.signal,
    });
    const ok = res.response.status === 200 && res.response.headers.get("Content-Type") === "text/event-stream" && res.data != null;
    check(ok, `GET /stream (Last-Event-ID ${last ?? "none"}): 200 text/event-stream (${res.response.status})`);
    return ok ? (res.data as ReadableStream<Uint8Array>) : undefined;
  };
  // Reads events until a notification that want accepts (others, such as posts entering the
  // feed, may come between); every event's data is validated against the contract.
  const next = async (events: AsyncGenerator<StreamEvent>, want: (n: StreamEvent & { event: "notification" }) => boolean) => {
    for await (const ev of events) {
      validator.validateEvent(ev.event, ev.data);
      if (ev.event === "refetch") {
        check(false, `stream: refetch within the resume window (${JSON.stringify(ev.data)})`);
        return undefined;
      }
      if (ev.event === "notification" && ev.id !== "" && want(ev)) return ev;
    }
    check(false, "stream: ended before the event");
    return undefined;
  };
  try {
    const body = await open();
    if (!body) return;
    const events = readStream(body);
    const react = await other.POST("/posts/{id}/react", { params: { path: { id: post } }, body: { type: "like" } });
    if (!check(react.data !== undefined, `the other member reacts to post ${post} (${react.response.status})`)) return;
    try {
      const first = await next(events, (n) => n.data.type === "reaction" && n.data.post_id === post);
      await events.return(undefined);
      if (!check(first !== undefined, `stream: the reaction arrives as notification event ${first?.id}, valid against StreamNotificationEvent`) || !first) return;

      const comment = await other.POST("/posts/{id}/comments", { params: { path: { id: post } }, body: { body: "While you were away" } });
      if (!check(comment.data !== undefined, `the other member comments on post ${post} while the stream is closed (${comment.response.status})`) || !comment.data) return;
      const commentId = comment.data.data.id;
      const resumed = await open(first.id);
      if (!resumed) return;
      const again = readStream(resumed);
      const missed = await next(again, (n) => n.data.comment_id === commentId);
      await again.return(undefined);
      check(missed !== undefined && Number(missed.id) > Number(first.id), `stream: resumed after ${first.id}, the missed comment arrives as event ${missed?.id}`);
    } finally {
      const del = await other.DELETE("/posts/{id}/react", { params: { path: { id: post } } });
      check(del.data !== undefined, `the other member's reaction removed (${del.response.status})`);
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

try {
  await run();
} catch (e) {
  if (!(e instanceof Stop)) {
    check(false, `unexpected error: ${e instanceof Error ? e.stack : String(e)}`);
  }
}
check(validator.validated >= 15, `${validator.validated} response bodies valid against the contract (Ajv + ajv-formats)`);
console.log(`ts-sdk: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
