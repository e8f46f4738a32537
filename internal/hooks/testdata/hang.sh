#!/usr/bin/env bash
# A hook that never answers, with a child that would outlive it.
sleep 1000 &
echo $! > "$1/child.pid"
echo $$ > "$1/hook.pid"
wait
