import type { Request, Response } from 'express';
import type { MethodDescriptor, ServiceDescriptor } from '@restbus/project-format';
import type { EventStreamTiming } from '../answer-event-stream';
import type { MockFiles } from '../create-mock-files';
import type { Implementations } from '../load-implementations';
import type { PreparedResponse } from '../prepare-responses';
import type { StatefulServices } from '../stateful/create-stateful-services';

/** Compiles one template mock file: what is wrong with it, as `file:line: what`, or undefined. */
export type TemplateCheck = () => Promise<string | undefined>;

/** How one source answers a route, and what the server must prepare for it. */
export interface RouteAnswer {
  /** Whether the route runs user code (which may use `request.session`). */
  implemented: boolean;
  /** Whether the route reads the request body (user code, a template, or a stateful POST or PUT). */
  readsBody: boolean;
  /** Whether the route needs `request.session` (user code, or a state kept per session). */
  usesSession: boolean;
  handle(req: Request, res: Response): Promise<void>;
  /** The route's template mock files, compiled by `--check` (checkTemplates) rather than at a first request. */
  templateChecks: TemplateCheck[];
}

/** What a source may use to answer one method of one service: gathered once per method, when the routes are built. */
export interface AnswerContext {
  service: ServiceDescriptor;
  method: string;
  definition: MethodDescriptor;
  responses: Map<string, PreparedResponse>;
  /** The service's folder, where its mock files are. */
  serviceDir: string;
  /** The descriptor as JSON: the answer when nothing better can be sent. */
  echo: string;
  /** What an implementation function gets as its third argument (describeService); one per service. */
  described: object;
  apiVersion: string;
  /** Broken implementations and mock files answer 500 instead of falling back. */
  strict: boolean;
  mockFiles: MockFiles;
  implementations: Implementations;
  stateful?: StatefulServices;
  eventTiming?: EventStreamTiming;
  /** Logs a problem once per key (a broken mock file), not once per request. */
  warnOnce(key: string, fields: Record<string, unknown>, message: string): void;
}

/** One source of answers: the route's answer when the method is this source's to answer, else undefined. */
export type AnswerSource = (context: AnswerContext) => RouteAnswer | undefined;
