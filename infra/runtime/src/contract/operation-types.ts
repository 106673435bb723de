import type { CallerIdentity, HeaderValue, RequestMessage } from '../wire/types';
import type { JsonTextOf } from './json-text-of';
import type { NotImplementedReply } from './not-implemented';

// Type-level reading of one operation as openapi-typescript writes it (`paths['/persons']['get']`): its parameters
// by location, its request body by media type, its responses by status. Generated handler interfaces are made of
// these, so a handler that is missing, answers an undeclared status or a body of the wrong shape does not compile.

type IsNever<T> = [T] extends [never] ? true : false;
/** An object of parameters, `{}` for a location that has none (openapi-typescript writes `query?: never`). */
type ParametersIn<Op, L extends string> = Op extends { parameters: infer P }
  ? P extends { [K in L]?: infer V }
    ? IsNever<NonNullable<V>> extends true
      ? Record<string, never>
      : NonNullable<V>
    : Record<string, never>
  : Record<string, never>;

type ContentValue<B> = B extends { content: infer C } ? C[keyof C] : unknown;
/** The request body: the union over its media types, `undefined` when the operation takes none or it is optional. */
type BodyOf<Op> = Op extends { requestBody?: infer B }
  ? IsNever<NonNullable<B>> extends true
    ? undefined
    : ContentValue<NonNullable<B>> | (undefined extends B ? undefined : never)
  : undefined;

/** What a handler gets: the parameters and body, checked against their schemas (and coerced), and the raw message. */
export interface OperationInput<Op> {
  params: ParametersIn<Op, 'path'>;
  query: ParametersIn<Op, 'query'>;
  /** Declared header parameters, by the name the document gives them. */
  headers: ParametersIn<Op, 'header'>;
  body: BodyOf<Op>;
  /**
   * Who called, as the gateway verified the operation's security (`--auth verify`): subject, schemes, scopes,
   * issuer, the claims passed on. Undefined for a public operation, or when the gateway checks nothing.
   */
  caller?: CallerIdentity;
  /** The request message as the gateway sent it: cookies, undeclared headers, the raw body. */
  message: RequestMessage;
}

type Digit = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
type ToNumber<S> = S extends `${infer N extends number}` ? N : never;
/** The statuses a declared key stands for: `200` itself, `2XX` 200 to 299, `default` any. */
export type StatusOf<S> = S extends number
  ? S
  : S extends 'default'
    ? number
    : S extends `${infer D extends 1 | 2 | 3 | 4 | 5}XX`
      ? ToNumber<`${D}${Digit}${Digit}`>
      : ToNumber<S>;

/**
 * A reply's body; a handler's may also be JSON text that stands for it (jsonTextOf), which is sent as it is. The reply
 * that opens an event stream (`text/event-stream`) may leave it out: its body, when there is one, is the snapshot the
 * gateway sends as the stream's first event.
 */
type ReplyBody<R, Sent extends boolean> = R extends { content: infer C }
  ? IsNever<C> extends true
    ? { body?: undefined }
    : 'text/event-stream' extends keyof C
      ? { body?: Sent extends true ? C[keyof C] | JsonTextOf<C[keyof C]> : C[keyof C] }
      : { body: Sent extends true ? C[keyof C] | JsonTextOf<C[keyof C]> : C[keyof C] }
  : { body?: undefined };
/** The names a headers object declares, without openapi-typescript's `[name: string]: unknown`. */
type DeclaredKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
type RequiredKeys<T> = { [K in DeclaredKeys<T>]-?: object extends Pick<T, K> ? never : K }[DeclaredKeys<T>];
/** Headers a response requires must be there; the others may be. */
type ReplyHeaders<R> = R extends { headers: infer H }
  ? IsNever<RequiredKeys<H>> extends true
    ? { headers?: Record<string, HeaderValue> }
    : { headers: Pick<H, RequiredKeys<H>> & Record<string, HeaderValue> }
  : { headers?: Record<string, HeaderValue> };

type ResponsesOf<Op> = Op extends { responses: infer R } ? R : never;

type DeclaredReply<Op, Sent extends boolean> = {
  [S in keyof ResponsesOf<Op>]: { status: StatusOf<S> } & ReplyBody<ResponsesOf<Op>[S], Sent> &
    ReplyHeaders<ResponsesOf<Op>[S]>;
}[keyof ResponsesOf<Op>];

/** What a caller gets: one of the declared responses, `{status, body, headers}`. */
export type OperationReply<Op> = DeclaredReply<Op, false>;

/** What a handler answers: one of the declared responses, its body the value or JSON text standing for it. */
export type HandlerReply<Op> = DeclaredReply<Op, true>;

/** A handler: one of the declared replies, or a stub's notImplemented(). */
export type OperationHandler<Op> = (
  input: OperationInput<Op>,
) => HandlerReply<Op> | NotImplementedReply | Promise<HandlerReply<Op> | NotImplementedReply>;

/** What a caller passes: the parts of the input it has (the service checks them against the same schemas). */
export type CallInput<Op> = Partial<Omit<OperationInput<Op>, 'message' | 'caller'>>;

/** The handlers of a service: one per operation of `Ops` (generated: `{getPersons: paths['/persons']['get'], …}`). */
export type ContractHandlers<Ops> = { [K in keyof Ops]: OperationHandler<Ops[K]> };

/** A typed caller of a service's operations over NATS, one method per operation. */
export type ContractClient<Ops> = {
  [K in keyof Ops]: (input?: CallInput<Ops[K]>) => Promise<OperationReply<Ops[K]>>;
};
