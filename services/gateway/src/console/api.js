// The platform API as the console calls it. The token lives in sessionStorage only: never in a
// URL, never in localStorage, gone when the tab closes.
const KEY = "starpost.platformToken";

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => sessionStorage.removeItem(KEY),
};

export class ApiError extends Error {
  constructor(envelope) {
    super(envelope.description ?? "request failed");
    this.code = envelope.error_code;
  }
}

/** Calls `/platform/v1${path}`; resolves with `result`, or throws the envelope's description. */
export async function api(method, path, body, signal) {
  const res = await fetch(`/platform/v1${path}`, {
    method,
    signal,
    headers: {
      authorization: `Bearer ${token.get()}`,
      ...(body !== undefined && { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await res.json();
  if (!envelope.ok) throw new ApiError(envelope);
  return envelope.result;
}
