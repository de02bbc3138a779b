// A thin fetch client over the types openapi-typescript generated from infra/openapi.yaml
// (src/schema.d.ts): every path, method, parameter, body and documented answer is typed; the
// answer is a union discriminated by `status`, so `if (r.status === 404) r.data.code` is checked.
import type { paths } from "./schema.js";

export type Method = "get" | "post" | "delete";

type Defined<T> = Exclude<T, undefined>;
/** The paths that serve `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: [Defined<paths[P][M]>] extends [never] ? never : P;
}[keyof paths];
/** The operation `M P`. */
export type Operation<M extends Method, P extends PathsWith<M>> = Defined<paths[P][M]>;

type Parameters<O> = O extends { parameters: infer X } ? X : never;
type QueryOf<O> = Parameters<O> extends { query?: infer Q } ? Q : never;
type HeaderOf<O> = Parameters<O> extends { header?: infer H } ? H : never;
type BodyOf<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
// A part given only where the operation has it; required where the file requires it.
type Part<K extends string, V> = [V] extends [never]
  ? { [P in K]?: never }
  : undefined extends V
    ? { [P in K]?: V }
    : {} extends V
      ? { [P in K]?: V }
      : { [P in K]: V };
export type RequestOptions<O> = Part<"query", QueryOf<O>> & Part<"headers", HeaderOf<O>> & Part<"body", BodyOf<O>>;

type ResponsesOf<O> = O extends { responses: infer R } ? R : never;
type DataOf<R> = R extends { content: { "application/json": infer J } }
  ? J
  : R extends { content: { "application/pdf": unknown } }
    ? Uint8Array
    : R extends { content: { "text/html": infer H } }
      ? H
      : undefined;
/** One documented answer of the operation: its status, its body as the file types it, its headers. */
export type Answer<O> = {
  [S in keyof ResponsesOf<O>]: { status: S; data: DataOf<ResponsesOf<O>[S]>; headers: Headers };
}[keyof ResponsesOf<O>];

export interface ClientOptions {
  /** Scheme, host and port of the deployment, without a trailing slash (paths begin with /api/v1). */
  baseUrl: string;
  /** `tiv_live_...` or `tiv_test_...`; sent as `Authorization: Bearer`. */
  apiKey?: string;
  fetch?: typeof fetch;
}

export class TivClient {
  readonly #base: string;
  readonly #key: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, "");
    this.#key = options.apiKey;
    this.#fetch = options.fetch ?? fetch;
  }

  /**
   * Sends `method path` and reads the answer: JSON as parsed, a PDF as bytes, HTML as text. A
   * status the file does not document for the operation comes back as it is.
   */
  async request<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    options: RequestOptions<Operation<M, P>>,
  ): Promise<Answer<Operation<M, P>>> {
    const { query, headers, body } = options as { query?: object; headers?: object; body?: unknown };
    const url = new URL(this.#base + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      // An object parameter is exploded as a form (its properties are parameters of their own).
      const fields = value !== null && typeof value === "object" ? Object.entries(value) : [[name, value]];
      for (const [field, v] of fields) {
        if (v !== undefined && v !== null) url.searchParams.append(String(field), String(v));
      }
    }
    const sent = new Headers();
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (value !== undefined && value !== null) sent.set(name, String(value));
    }
    if (this.#key !== undefined) sent.set("authorization", `Bearer ${this.#key}`);
    if (body !== undefined) sent.set("content-type", "application/json");
    const response = await this.#fetch(url, {
      method: method.toUpperCase(),
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    const type = response.headers.get("content-type") ?? "";
    const data = type.includes("application/json")
      ? await response.json()
      : type.includes("application/pdf")
        ? new Uint8Array(await response.arrayBuffer())
        : type.startsWith("text/")
          ? await response.text()
          : undefined;
    return { status: response.status, data, headers: response.headers } as Answer<Operation<M, P>>;
  }
}
