#!/usr/bin/env bash
# A PostToolUse audit logger: one line per call, to the file in AUDIT_LOG.
cat >> "$AUDIT_LOG"
echo >> "$AUDIT_LOG"
