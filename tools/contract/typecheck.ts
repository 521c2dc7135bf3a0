// Compiled with the client @hey-api/openapi-ts generates (tools/contract/run.sh): every nullable
// reference of the contract must be typed exactly "the referenced type or null".
import type { Conversation, Job, Location, Message, Notification, Poll, Post, PostViewer } from "./client/types.gen";
import type { ReactionResult, ReactionType, Salary, SearchMeta, SearchType } from "./client/types.gen";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

export const nullableReferences: [
  Equal<PostViewer["reaction"], ReactionType | null>,
  Equal<ReactionResult["reaction"], ReactionType | null>,
  Equal<Notification["reaction"], ReactionType | null>,
  Equal<SearchMeta["type"], SearchType | null>,
  Equal<Post["poll"], Poll | null>,
  Equal<Conversation["last_message"], Message | null>,
  Equal<Job["location"], Location | null>,
  Equal<Job["salary"], Salary | null>,
] = [true, true, true, true, true, true, true, true];
