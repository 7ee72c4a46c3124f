import { addFilePart, addParam, Errors, readFormParams, type ParamBudget, type RawParams } from "@starpost/shared";

/** RFC 2046's limit, which the official server's reader also enforces. */
const MAX_BOUNDARY_LENGTH = 70;

/**
 * The boundary of a multipart Content-Type, found the official server's way: the first
 * "boundary" anywhere in the header (any case), then the text after the next `=` up to `;`,
 * without surrounding quotes.
 */
export function multipartBoundary(contentType: string): string {
  const at = contentType.toLowerCase().indexOf("boundary");
  if (at < 0) throw Errors.boundaryNotFound();
  const eq = contentType.indexOf("=", at + 8);
  if (eq < 0) throw Errors.boundaryValueNotFound();
  const semi = contentType.indexOf(";", eq + 1);
  let value = contentType.slice(eq + 1, semi < 0 ? undefined : semi);
  if (value.length > 1 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  if (value === "" || value.length > MAX_BOUNDARY_LENGTH) throw Errors.boundaryInvalid();
  return value;
}

interface PartHeaders {
  name: string;
  isFile: boolean;
  type: string;
}

/** A part's header block (`Content-Disposition`, `Content-Type`); the reference's texts for what it refuses. */
function readPartHeaders(block: string): PartHeaders {
  let name = "";
  let isFile = false;
  let type = "application/octet-stream";
  // Folded lines (a line starting with a space or tab) continue the header before them.
  for (const line of block.split(/\r\n(?![ \t])/)) {
    if (line === "") continue;
    const colon = line.indexOf(":");
    if (colon < 0) throw Errors.multipartHeaders();
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === "content-type") type = value;
    if (header !== "content-disposition") continue;
    if (!value.startsWith("form-data;")) throw Errors.multipartDisposition();
    for (const item of value.slice(10).split(";")) {
      const eq = item.indexOf("=");
      if (eq < 0) continue;
      const key = item.slice(0, eq).trim();
      let v = item.slice(eq + 1).trim();
      if (v.length > 1 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
      if (key === "name") name = v;
      else if (key === "filename") isFile = true;
    }
  }
  if (name === "") throw Errors.multipartFieldName();
  return { name, isFile, type };
}

/**
 * Reads a multipart/form-data body into `params` the way the official server's HTTP reader does:
 * parts with a filename are files (accepted and ignored: setWebhook's `certificate`), a part typed
 * application/x-www-form-urlencoded holds urlencoded parameters, every other part is one
 * parameter. Malformed part headers get the reference's 400s. A body that ends before its closing
 * boundary keeps the parts read so far (the reference would wait for the rest of it).
 */
export function readMultipartParams(params: RawParams, body: Buffer, boundary: string, budget?: ParamBudget): void {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first boundary may start the body, without the CRLF before it.
  let pos = body.indexOf(delimiter.subarray(2));
  if (pos < 0) return;
  pos += delimiter.length - 2;
  for (;;) {
    const headersEnd = body.indexOf("\r\n\r\n", pos);
    if (headersEnd < 0) return;
    if (headersEnd === pos) throw Errors.multipartHeadersEmpty();
    const part = readPartHeaders(body.subarray(pos + 2, headersEnd).toString("utf8"));
    const valueStart = headersEnd + 4;
    const valueEnd = body.indexOf(delimiter, valueStart);
    if (valueEnd < 0) return;
    const value = body.subarray(valueStart, valueEnd);
    if (part.type.startsWith("application/x-www-form-urlencoded") && !part.isFile)
      readFormParams(params, value, budget);
    else {
      budget?.take();
      if (part.isFile) addFilePart(params, part.name);
      else addParam(params, part.name, value.toString("utf8"));
    }
    pos = valueEnd + delimiter.length;
    if (body.length - pos < 2 || (body[pos] === 0x2d && body[pos + 1] === 0x2d)) return;
  }
}
