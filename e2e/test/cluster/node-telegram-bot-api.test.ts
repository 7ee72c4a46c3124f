// The node-telegram-bot-api suite again, on a 3-master, 3-replica Redis Cluster with two replicas of gateway,
// updates and invoices and three webhook workers; then its keys must sit on every master.
import "@starpost/testkit/use-cluster";
import "../node-telegram-bot-api.test.ts";
import { expect, it } from "vitest";
import { assertKeysSpread } from "@starpost/testkit";

it("kept the suite's bots and keys spread over every master", async () => {
  expect((await assertKeysSpread()).length).toBe(1);
});
