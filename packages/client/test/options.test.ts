import { describe, expect, it } from "vitest";
import { Starpost } from "@starpost/client";

describe("new Starpost(options)", () => {
  it("names the mistake: the Platform API URL given for the API root", () => {
    expect(() => new Starpost({ url: "http://127.0.0.1:8081/platform/v1/", platformToken: "t" })).toThrow(
      'Starpost: options.url is the API root, without /platform/v1: use "http://127.0.0.1:8081" (the client adds /platform/v1 itself)',
    );
  });

  it("names a missing URL or platform token, and a URL that is not http(s)", () => {
    const env: Record<string, string | undefined> = {};
    expect(() => new Starpost({ url: env.STARPOST_URL!, platformToken: "t" })).toThrow(
      "Starpost: options.url is required: the API root `starpost start` printed (STARPOST_URL), e.g. http://127.0.0.1:8081",
    );
    expect(() => new Starpost({ url: "http://127.0.0.1:8081", platformToken: env.STARPOST_PLATFORM_TOKEN! })).toThrow(
      "Starpost: options.platformToken is required: the platform token `starpost start` printed (STARPOST_PLATFORM_TOKEN)",
    );
    expect(() => new Starpost({ url: "127.0.0.1:8081", platformToken: "t" })).toThrow(
      'Starpost: options.url must be an http(s) URL, got "127.0.0.1:8081"',
    );
    expect(() => Starpost.fromEnv({})).toThrow(TypeError);
  });

  it("keeps the API root without its trailing slash, from the options or the environment", () => {
    expect(new Starpost({ url: "http://127.0.0.1:8081/", platformToken: "t" }).url).toBe("http://127.0.0.1:8081");
    const sp = Starpost.fromEnv({ STARPOST_URL: "https://sp.example:8443/root", STARPOST_PLATFORM_TOKEN: "t" });
    expect(sp.url).toBe("https://sp.example:8443/root");
  });
});
