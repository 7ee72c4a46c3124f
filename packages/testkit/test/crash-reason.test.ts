import { describe, expect, it } from "vitest";
import { crashReason } from "@starpost/testkit";

describe("crashReason", () => {
  it("takes a service's one line for a bad setting", () => {
    expect(
      crashReason(["something before", "starpost updates: invalid environment variable LOG_LEVEL: Invalid option"]),
    ).toBe("invalid environment variable LOG_LEVEL: Invalid option");
  });

  it("names a port in use from node's uncaught EADDRINUSE", () => {
    const lines = [
      "node:net:1908",
      "    const ex = new UVExceptionWithHostPort(err, 'listen', address, port);",
      "               ^",
      "",
      "Error: listen EADDRINUSE: address already in use 127.0.0.1:20101",
      "    at Server.setupListenHandle [as _listen2] (node:net:1908:16)",
      "Node.js v20.20.2",
    ];
    expect(crashReason(lines)).toBe("port 20101 is in use");
  });

  it("joins an uncaught error with the last error the process logged before it", () => {
    const lines = [
      '{"level":30,"msg":"started"}',
      '{"level":50,"role":"updates","err":{"message":"connect ECONNREFUSED 127.0.0.1:1"},"msg":"redis error"}',
      "MaxRetriesPerRequestError: Reached the max retries per request limit (which is 3).",
      "    at Socket.<anonymous> (event_handler.js:207:37)",
    ];
    expect(crashReason(lines)).toBe(
      "MaxRetriesPerRequestError: Reached the max retries per request limit (which is 3). (after: redis error: connect ECONNREFUSED 127.0.0.1:1)",
    );
  });

  it("falls back to the last error logged, then to the last line, and says nothing for no output", () => {
    expect(crashReason(['{"level":60,"msg":"fatal thing"}', '{"level":30,"msg":"info"}'])).toBe("fatal thing");
    expect(crashReason(['{"level":30,"msg":"info"}', "  "])).toBe('{"level":30,"msg":"info"}');
    expect(crashReason([])).toBeUndefined();
  });
});
