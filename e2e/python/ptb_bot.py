"""A python-telegram-bot 13 bot, unmodified but for its base_url, driven by e2e/test/python.test.ts.

Prints one JSON line per step it saw; reads the next instruction as a line on stdin.
Usage: ptb_bot.py <api root> <token> <chat id>
"""
import json
import sys
import warnings

warnings.simplefilter("ignore")  # PTB 13 warns about Debian's upstream urllib3
from telegram import Bot, LabeledPrice  # noqa: E402


def say(**fields):
    print(json.dumps(fields), flush=True)


root, token, chat_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
bot = Bot(token, base_url=f"{root}/bot")

me = bot.get_me()
say(step="get_me", id=me.id, username=me.username, is_bot=me.is_bot)

message = bot.send_invoice(chat_id, "Stars pack", "Fifty stars", "ptb-payload", "", "XTR", [LabeledPrice("Pack", 50)])
say(step="send_invoice", message_id=message.message_id, currency=message.invoice.currency, total=message.invoice.total_amount)

offset = 0
paid = None
while paid is None:
    for update in bot.get_updates(offset=offset, timeout=5):
        offset = update.update_id + 1
        if update.pre_checkout_query:
            q = update.pre_checkout_query
            say(step="pre_checkout_query", payload=q.invoice_payload, total=q.total_amount, currency=q.currency)
            bot.answer_pre_checkout_query(q.id, ok=True)
        elif update.message and update.message.successful_payment:
            paid = update.message.successful_payment
            say(step="successful_payment", charge=paid.telegram_payment_charge_id, payload=paid.invoice_payload)
bot.get_updates(offset=offset, timeout=0)  # confirm what was handled

url = sys.stdin.readline().strip()
bot.set_webhook(url=url, secret_token="ptb_secret", max_connections=3, allowed_updates=["message"])
info = bot.get_webhook_info()
say(step="webhook", url=info.url, max_connections=info.max_connections, allowed_updates=info.allowed_updates)
say(step="deleted", result=bot.delete_webhook())
