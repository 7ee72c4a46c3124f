import { isIP } from "node:net";
import { resolveWebhookHost, type OwnEndpoints } from "@starpost/runtime";

/** A connection refused by the guard; its message is the webhook's last error text. */
export class WebhookTargetError extends Error {
  constructor(
    message: string,
    readonly code: "WEBHOOK_RESERVED_IP" | "WEBHOOK_UNRESOLVED" | "WEBHOOK_OWN_ENDPOINT",
  ) {
    super(message);
  }
}

type LookupCallback = (
  err: Error | null,
  address: string | { address: string; family: number }[],
  family?: number,
) => void;

/**
 * Where a webhook may be dialled: never one of starpost's own listeners or Redis servers (whatever
 * the private-network setting), never a reserved address unless private networks are allowed. The
 * address checked is the address dialled: every new connection resolves its host again through
 * `lookup`, so a DNS answer that changes after setWebhook cannot bring a refused target in.
 */
export class TargetGuard {
  constructor(
    private readonly allowPrivateNetworks: boolean,
    private readonly own: OwnEndpoints,
  ) {}

  /** The address to dial for `host:port`; a WebhookTargetError (the last error text) when refused. */
  async resolve(host: string, port: number): Promise<string> {
    const r = await resolveWebhookHost(host, this.allowPrivateNetworks);
    if (r.outcome === "reserved") throw new WebhookTargetError(`IP address ${r.ip} is reserved`, "WEBHOOK_RESERVED_IP");
    if (r.outcome === "unresolved") {
      throw new WebhookTargetError(`Failed to resolve host: ${r.message}`, "WEBHOOK_UNRESOLVED");
    }
    if (await this.own.find(r.ip, port)) {
      throw new WebhookTargetError(`IP address ${r.ip} port ${port} is starpost's own`, "WEBHOOK_OWN_ENDPOINT");
    }
    return r.ip;
  }

  /** A `lookup` for net/tls connect options of the connections to one port. */
  lookup(port: number) {
    return (hostname: string, options: { all?: boolean } | number, callback: LookupCallback) => {
      this.resolve(hostname, port).then(
        (ip) => {
          const family = isIP(ip);
          if (typeof options === "object" && options.all) callback(null, [{ address: ip, family }]);
          else callback(null, ip, family);
        },
        (err: Error) => callback(err, ""),
      );
    };
  }
}
