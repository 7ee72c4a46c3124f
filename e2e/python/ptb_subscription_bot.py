"""A python-telegram-bot 13 bot selling a Star subscription, driven by e2e/test/python.test.ts.

PTB 13 predates subscriptions: createInvoiceLink gets subscription_period through api_kwargs,
editUserStarSubscription and refundStarPayment go through its request layer (Bot._post, which needs an explicit timeout), and
updates are read raw through the same layer (PTB's SuccessfulPayment drops the subscription
fields), then parsed by PTB's Update.de_json for handling.
Prints one JSON line per update it handled. Usage: ptb_subscription_bot.py <api root> <token>
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")  # PTB 13 warns about Debian's upstream urllib3
from telegram import Bot, LabeledPrice, Update  # noqa: E402
from telegram.error import BadRequest  # noqa: E402


def say(**fields):
    print(json.dumps(fields), flush=True)


root, token = sys.argv[1], sys.argv[2]
bot = Bot(token, base_url=f"{root}/bot")
first_charge = {}
offset = 0
running = True
while running:
    for raw in bot._post("getUpdates", {"offset": offset, "timeout": 5}, timeout=15):
        offset = raw["update_id"] + 1
        update = Update.de_json(raw, bot)
        if update.pre_checkout_query:
            q = update.pre_checkout_query
            say(kind="pre_checkout_query", user=q.from_user.id, payload=q.invoice_payload)
            bot.answer_pre_checkout_query(q.id, ok=True)
            continue
        message = update.message
        if message.successful_payment:
            paid = message.successful_payment
            fields = raw["message"]["successful_payment"]
            if fields.get("is_first_recurring"):
                first_charge[message.chat.id] = paid.telegram_payment_charge_id
            say(kind="successful_payment", user=message.chat.id, date=message.date.timestamp(), charge=paid.telegram_payment_charge_id, raw=fields)
            continue
        if raw["message"].get("refunded_payment"):
            say(kind="refunded_payment", user=message.chat.id, charge=raw["message"]["refunded_payment"]["telegram_payment_charge_id"])
            continue
        say(kind="text", user=message.chat.id, text=message.text)
        command, _, arg = message.text.partition(" ")
        if command == "/join":
            link = bot.create_invoice_link("Club", "The monthly club", "ptb-club", "", "XTR", [LabeledPrice("Month", 7)], api_kwargs={"subscription_period": 2592000})
            bot.send_message(message.chat.id, link)
        elif command in ("/stop", "/resume"):
            args = {"user_id": message.chat.id, "telegram_payment_charge_id": first_charge[message.chat.id], "is_canceled": command == "/stop"}
            try:
                bot.send_message(message.chat.id, f"edited {bot._post('editUserStarSubscription', args, timeout=10)}")
            except BadRequest as e:
                bot.send_message(message.chat.id, f"error {e.message}")
        elif command == "/refund":
            try:
                result = bot._post("refundStarPayment", {"user_id": message.chat.id, "telegram_payment_charge_id": arg}, timeout=10)
                bot.send_message(message.chat.id, f"refunded {result}")
            except BadRequest as e:
                bot.send_message(message.chat.id, f"error {e.message}")
        elif command == "/quit":
            running = False
bot._post("getUpdates", {"offset": offset, "timeout": 0}, timeout=10)  # confirm what was handled
