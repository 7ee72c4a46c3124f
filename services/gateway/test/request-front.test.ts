import { deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, startStack, type TestStack } from "@starpost/testkit";

/**
 * The request front against the official server's HTTP reader (td/net/HttpReader.cpp): a body it
 * cannot parse counts as no body parameters and the method runs with the query string; only the
 * framing of a multipart body, an unknown content coding and an oversized body are refused.
 */

let stack: TestStack;
let bot: { id: number; token: string; username: string };

beforeAll(async () => {
  stack = await startStack();
  bot = await stack.platform.createBot({ first_name: "Front" });
});
afterAll(() => stack.close());

type Answer = { status: number; body: unknown };
const bad = (description: string): Answer => ({
  status: 400,
  body: { ok: false, error_code: 400, description: `Bad Request: ${description}` },
});

/** What each method answers when the body adds nothing: the reference's answers without parameters. */
function answersWithoutBody(): Record<string, Answer> {
  return {
    getMe: {
      status: 200,
      body: {
        ok: true,
        result: expect.objectContaining({ id: bot.id, is_bot: true, first_name: "Front", username: bot.username }),
      },
    },
    sendInvoice: bad('parameter "title" is required'),
    getUpdates: { status: 200, body: { ok: true, result: [] } },
    setWebhook: { status: 200, body: { ok: true, result: true, description: "Webhook is already deleted" } },
  };
}

/** A body shape: its headers and bytes, and the answer when the reference refuses it outright. */
interface Shape {
  name: string;
  contentType: string;
  encoding?: string;
  body: Buffer;
  refused?: Answer;
}

const b = (s: string) => Buffer.from(s, "latin1");
const part = (headers: string, value: string) => `--x\r\n${headers}\r\n\r\n${value}\r\n`;

const SHAPES: Shape[] = [
  ...["null", "null\n", "[1,2]", "3", "true", '"x"', "{not json", '{"title":', "{}garbage", "", " \n"].map((text) => ({
    name: `JSON ${JSON.stringify(text)}`,
    contentType: "application/json",
    body: b(text),
  })),
  ...["%zz=%&&==&%", "\xff\xfe\x00", "title", "=x"].map((text) => ({
    name: `urlencoded ${JSON.stringify(text)}`,
    contentType: "application/x-www-form-urlencoded",
    body: b(text),
  })),
  {
    name: "multipart without boundary",
    contentType: "multipart/form-data",
    body: b(part('Content-Disposition: form-data; name="title"', "T")),
    refused: bad("boundary not found"),
  },
  {
    name: "multipart boundary without value",
    contentType: "multipart/form-data; boundary",
    body: b("--x"),
    refused: bad("boundary value not found"),
  },
  {
    name: "multipart empty boundary",
    contentType: "multipart/form-data; boundary=",
    body: b("--x"),
    refused: bad("boundary too big or empty"),
  },
  {
    name: "multipart boundary too long",
    contentType: `multipart/form-data; boundary=${"y".repeat(71)}`,
    body: b("--x"),
    refused: bad("boundary too big or empty"),
  },
  {
    name: "multipart part without name",
    contentType: "multipart/form-data; boundary=x",
    body: b(`${part("Content-Disposition: form-data; x=1", "T")}--x--`),
    refused: bad("field name in multipart/form-data not found"),
  },
  {
    name: "multipart not form-data",
    contentType: "multipart/form-data; boundary=x",
    body: b(`${part("Content-Disposition: attachment", "T")}--x--`),
    refused: bad("expected form-data content disposition"),
  },
  {
    name: "multipart empty part headers",
    contentType: "multipart/form-data; boundary=x",
    body: b("--x\r\n\r\nT\r\n--x--"),
    refused: bad("headers in multipart/form-data are empty"),
  },
  {
    name: "multipart header without colon",
    contentType: "multipart/form-data; boundary=x",
    body: b(`${part("nonsense", "T")}--x--`),
    refused: bad("can't parse form data headers"),
  },
  {
    name: "multipart truncated part",
    contentType: "multipart/form-data; boundary=x",
    body: b('--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nT'),
  },
  {
    name: "multipart with no boundary in the body",
    contentType: "multipart/form-data; boundary=x",
    body: b("just text"),
  },
  { name: "multipart empty", contentType: "multipart/form-data; boundary=x", body: b("--x--\r\n") },
  { name: "gzip JSON null", contentType: "application/json", encoding: "gzip", body: gzipSync("null") },
  { name: "gzip broken JSON", contentType: "application/json", encoding: "gzip", body: gzipSync('{"title": ') },
  { name: "deflate JSON array", contentType: "application/json", encoding: "deflate", body: deflateSync("[1]") },
  {
    name: "gzip urlencoded garbage",
    contentType: "application/x-www-form-urlencoded",
    encoding: "gzip",
    body: gzipSync("%%%"),
  },
  {
    name: "gzip multipart truncated",
    contentType: "multipart/form-data; boundary=x",
    encoding: "gzip",
    body: gzipSync("--x\r\nContent-Disp"),
  },
  {
    name: "gzip header, bytes not gzip",
    contentType: "application/json",
    encoding: "gzip",
    body: b("null"),
    refused: bad("zlib error -3"),
  },
  {
    name: "unknown content coding",
    contentType: "application/json",
    encoding: "br",
    body: b("null"),
    refused: {
      status: 415,
      body: { ok: false, error_code: 415, description: "Unsupported Media Type: unsupported content-encoding" },
    },
  },
];

async function send(method: string, shape: Shape, query = ""): Promise<Answer> {
  const headers: Record<string, string> = shape.encoding ? { "content-encoding": shape.encoding } : {};
  const r = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/${method}${query}`, {
    body: shape.body,
    contentType: shape.contentType,
    headers,
  });
  return { status: r.status, body: r.body };
}

describe("malformed bodies, method by method", () => {
  it("get the reference's answers over JSON, urlencoded, multipart and gzip", async () => {
    const expected = answersWithoutBody();
    let asserted = 0;
    for (const shape of SHAPES) {
      for (const method of Object.keys(expected)) {
        const got = await send(method, shape);
        expect({ shape: shape.name, method, ...got }).toEqual({
          shape: shape.name,
          method,
          ...(shape.refused ?? expected[method]!),
        });
        asserted++;
      }
    }
    expect(asserted).toBe(SHAPES.length * 4);
  });

  it("keep the query string's parameters: the method runs with them", async () => {
    let asserted = 0;
    for (const shape of SHAPES.filter((s) => !s.refused)) {
      expect(await send("sendInvoice", shape, "?title=T")).toEqual(bad('parameter "description" is required'));
      expect(await send("setWebhook", shape, "?url=https:///hook")).toEqual(bad("invalid webhook URL specified"));
      asserted += 2;
    }
    expect(asserted).toBeGreaterThan(40);
  });
});

describe("Content-Type values", () => {
  it("are read like the reference reads them: by substring, never refused", async () => {
    const cases: [string, Answer][] = [
      ["weird", bad('parameter "description" is required')],
      [";;;", bad('parameter "description" is required')],
      ["application/json, text/plain", bad('parameter "payload" is required')],
      ["text/plain; x=application/json", bad('parameter "payload" is required')],
      ["Application/JSON; charset=utf-8", bad('parameter "payload" is required')],
      ["text/plain", bad('parameter "description" is required')],
    ];
    for (const [contentType, expected] of cases) {
      const r = await http(stack.gatewayUrl, "POST", `/bot${bot.token}/sendInvoice?title=T`, {
        body: '{"description":"D"}',
        contentType,
      });
      expect({ contentType, status: r.status, body: r.body }).toEqual({ contentType, ...expected });
    }
  });
});

describe("multipart parts", () => {
  const sendInvoice = (body: string, contentType: string) =>
    http(stack.gatewayUrl, "POST", `/bot${bot.token}/sendInvoice`, { body: Buffer.from(body), contentType }).then(
      (r) => ({ status: r.status, body: r.body }),
    );

  it("are read the reference's way: files dropped, urlencoded parts expanded, quoted boundaries", async () => {
    const file = part(
      'Content-Disposition: form-data; name="description"; filename="d.txt"\r\nContent-Type: text/plain',
      "D",
    );
    const title = part('Content-Disposition: form-data; name="title"', "T");
    expect(await sendInvoice(`${title}${file}--x--`, 'multipart/form-data; boundary="x"')).toEqual(
      bad('parameter "description" is required'),
    );
    const form = part(
      'Content-Disposition: form-data; name="anything"\r\nContent-Type: application/x-www-form-urlencoded',
      "title=T&description=D",
    );
    expect(await sendInvoice(`${form}--x--`, "multipart/form-data; boundary=x")).toEqual(
      bad('parameter "payload" is required'),
    );
    // Folded header lines and any case in header names; the epilogue after the last boundary is ignored.
    const folded = part('content-disposition: form-data;\r\n name="title"', "T");
    expect(await sendInvoice(`preamble\r\n${folded}--x--\r\nepilogue`, "Multipart/Form-Data; Boundary=x")).toEqual(
      bad('parameter "description" is required'),
    );
  });
});

describe("a GET with a body", () => {
  it("is read like a POST (the reference reads GET bodies too)", async () => {
    const r = await http(stack.gatewayUrl, "GET", `/bot${bot.token}/sendInvoice`, { body: '{"title":"T"}' });
    expect({ status: r.status, body: r.body }).toEqual(bad('parameter "description" is required'));
  });
});

describe("duplicate parameters", () => {
  const path = () => `/bot${bot.token}/sendInvoice`;
  const titleRequired = bad('parameter "title" is required');
  const descriptionRequired = bad('parameter "description" is required');
  const answer = async (p: Promise<{ status: number; body: unknown }>) => {
    const r = await p;
    return { status: r.status, body: r.body };
  };

  it("take the first occurrence: twice in the query string, in one body, and query before body", async () => {
    const multipart = (fields: [string, string][]) =>
      fields.map(([k, v]) => part(`Content-Disposition: form-data; name="${k}"`, v)).join("") + "--x--\r\n";
    const cases: [string, Promise<{ status: number; body: unknown }>, Answer][] = [
      ["query, empty first", http(stack.gatewayUrl, "GET", `${path()}?title=&title=T`), titleRequired],
      ["query, value first", http(stack.gatewayUrl, "GET", `${path()}?title=T&title=`), descriptionRequired],
      [
        "JSON, empty first",
        http(stack.gatewayUrl, "POST", path(), { body: '{"title":"","title":"T"}' }),
        titleRequired,
      ],
      [
        "JSON, value first",
        http(stack.gatewayUrl, "POST", path(), { body: '{"title":"T","title":""}' }),
        descriptionRequired,
      ],
      [
        "form, empty first",
        http(stack.gatewayUrl, "POST", path(), {
          body: "title=&title=T",
          contentType: "application/x-www-form-urlencoded",
        }),
        titleRequired,
      ],
      [
        "multipart, empty first",
        http(stack.gatewayUrl, "POST", path(), {
          body: multipart([
            ["title", ""],
            ["title", "T"],
          ]),
          contentType: "multipart/form-data; boundary=x",
        }),
        titleRequired,
      ],
      [
        "query before JSON body",
        http(stack.gatewayUrl, "POST", `${path()}?title=`, { body: { title: "T" } }),
        titleRequired,
      ],
      [
        "query before form body",
        http(stack.gatewayUrl, "POST", `${path()}?title=T`, {
          body: "title=",
          contentType: "application/x-www-form-urlencoded",
        }),
        descriptionRequired,
      ],
    ];
    for (const [name, call, expected] of cases)
      expect({ name, ...(await answer(call)) }).toEqual({ name, ...expected });
  });
});

describe("long GET requests", () => {
  it("take a 20 KiB query string (the reference reads headers up to 256 KiB)", async () => {
    const pad = "a".repeat(20 * 1024);
    const r = await http(stack.gatewayUrl, "GET", `/bot${bot.token}/getMe?pad=${pad}`);
    expect(r.status).toBe(200);
    expect(r.body.result.id).toBe(bot.id);
    const invoice = await http(
      stack.gatewayUrl,
      "GET",
      `/bot${bot.token}/sendInvoice?title=T&description=${pad}&payload=p&currency=XTR&prices=${encodeURIComponent('[{"label":"a","amount":1}]')}`,
    );
    // The long value arrived whole: the description limit (255 characters) is what refuses it.
    expect(invoice.body).toEqual(bad("INVOICE_DESCRIPTION_INVALID").body);
  });
});

describe("the platform API", () => {
  const post = (body: string, contentType = "application/json") =>
    http(stack.gatewayUrl, "POST", "/platform/v1/bots", {
      body,
      contentType,
      headers: { authorization: `Bearer ${stack.platform.token}` },
    });

  it("refuses a malformed body with a 400 that names the problem", async () => {
    const broken = await post("{not json");
    expect(broken.status).toBe(400);
    expect(broken.body.description).toMatch(/^Bad Request: the body must be JSON: .+/);
    const form = await post("username=x_bot", "application/x-www-form-urlencoded");
    expect(form.body).toEqual({
      ok: false,
      error_code: 400,
      description:
        'Bad Request: the body must be JSON: Content-Type is "application/x-www-form-urlencoded", expected "application/json"',
    });
    const gzipped = await http(stack.gatewayUrl, "POST", "/platform/v1/bots", {
      body: "{}",
      contentType: "application/json",
      headers: { authorization: `Bearer ${stack.platform.token}`, "content-encoding": "gzip" },
    });
    expect(gzipped.body.description).toBe("Bad Request: the body must be JSON: Content-Encoding is not supported");
  });
});

describe("int64 ids sent as JSON numbers", () => {
  it("settle the right pre-checkout query: a 19-digit id keeps every digit", async () => {
    const shop = await stack.platform.createBot({ first_name: "Shop" });
    const user = { id: 901, first_name: "Payer" };
    await stack.platform.putChat(shop.id, { id: user.id, type: "private", first_name: user.first_name });
    const call = (method: string, body: string) =>
      http(stack.gatewayUrl, "POST", `/bot${shop.token}/${method}`, { body });
    let offset = 0;
    const nextQuery = async () => {
      for (;;) {
        const r = await call("getUpdates", `{"offset":${offset},"timeout":10}`);
        for (const u of r.body.result) {
          offset = u.update_id + 1;
          if (u.pre_checkout_query) return u.pre_checkout_query as { id: string; invoice_payload: string };
        }
      }
    };
    // Query ids are random 63-bit numbers, 19 digits nine times in ten: decline others until one is.
    for (let attempt = 0; attempt < 20; attempt++) {
      const invoice = await call(
        "sendInvoice",
        `{"chat_id":${user.id},"title":"T","description":"D","payload":"p${attempt}","currency":"XTR","prices":[{"label":"a","amount":5}]}`,
      );
      expect(invoice.status).toBe(200);
      const paying = stack.platform.call("POST", `/bots/${shop.id}/payments`, {
        chat_id: user.id,
        message_id: invoice.body.result.message_id,
        user,
      });
      const query = await nextQuery();
      expect(query.invoice_payload).toBe(`p${attempt}`);
      if (query.id.length !== 19) {
        await call(
          "answerPreCheckoutQuery",
          `{"pre_checkout_query_id":"${query.id}","ok":false,"error_message":"retry"}`,
        );
        expect((await paying).body.result.status).toBe("declined");
        continue;
      }
      // Beyond 2^53: a JSON.parse of this body would have rounded the id to another one.
      expect(String(Number(query.id))).not.toBe(query.id);
      const answer = await call("answerPreCheckoutQuery", `{"pre_checkout_query_id":${query.id},"ok":true}`);
      expect(answer.body).toEqual({ ok: true, result: true });
      expect((await paying).body.result.status).toBe("paid");
      return;
    }
    throw new Error("no 19-digit query id in 20 payments");
  });
});
