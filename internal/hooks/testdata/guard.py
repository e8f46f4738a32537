#!/usr/bin/env python3
"""A PreToolUse guard that answers in JSON: deny rm, allow the rest."""
import json
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if command.startswith("rm "):
    decision, reason = "deny", "guard.py: rm is blocked (" + event["tool_name"] + ")"
else:
    decision, reason = "allow", "fine"
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                         "permissionDecision": decision,
                                         "permissionDecisionReason": reason}}))
