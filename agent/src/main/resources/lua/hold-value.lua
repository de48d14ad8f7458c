-- Fragment, included by every hold script: the hold key's value, and which Redis wrote it.
-- KEYS[1] the hold key, baton:{gate:<namespace>/<group>}
-- KEYS[2] beside it, the highest term any take wrote
-- KEYS[3] beside it, the number of the last write: every write takes the next one
-- The key holds '<state> <term> <seq> <incarnation> <hold>':
--   state        A: taken while the key was absent, not yet proven, so its gate is shut;
--                H: held and proven, its gate may be open; R: released, its gate closed
--   term         the operator's term the hold was taken for: a take for a lower term is refused
--   seq          this write's number, above every number written on this Redis before while the
--                counter beside the key lives: no two writes leave the same value, so a taker
--                that finds the same value twice, a whole confirmWithin apart by its own clock,
--                knows that nothing was written between, not even the same call run again
--   incarnation  '<run_id>.<master_replid>' of the Redis that wrote it. A restart (empty, or from
--                an RDB or AOF file) has another run id, a promoted replica another replication
--                id: a value written by another incarnation may be older than what was last
--                written, so it counts as absent
--   hold         agent:<namespace>/<pod>:<term>:<nonce>-<n>[@<pod IP>], named by the take (or
--                re-take) that wrote it and by no other call: compared whole; an agent that gave
--                up on a take recognises its hold when it reads the key next
-- Nothing here reads Redis's clock to decide: TIME is only returned, for the agent to report a
-- clock that steps.
local function incarnation()
  local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%w+)')
  local replid = string.match(redis.call('INFO', 'replication'), 'master_replid:(%w+)') or 'none'
  return runid .. '.' .. replid
end

local function millis()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The key's value if this incarnation wrote it, parsed; else nil. Second result: the raw value
-- (another incarnation's, or one of another format), or nil when the key is absent.
local function current(key, inc)
  local raw = redis.call('GET', key)
  if not raw then
    return nil, nil
  end
  local state, term, seq, by, hold = string.match(raw, '^([AHR]) (%d+) (%d+) (%S+) (%S+)$')
  if not state or by ~= inc then
    return nil, raw
  end
  return {state = state, term = tonumber(term), seq = tonumber(seq), hold = hold, raw = raw}, raw
end

-- Writes the value with the next write number: the counter's next, and above the value's own
-- (a value written while the counter was lost).
local function write(cur, state, term, inc, hold, lifetime)
  local seq = redis.call('INCR', KEYS[3])
  if cur and cur.seq >= seq then
    seq = cur.seq + 1
    redis.call('SET', KEYS[3], seq, 'PX', lifetime)
  else
    redis.call('PEXPIRE', KEYS[3], lifetime)
  end
  redis.call('SET', KEYS[1], state .. ' ' .. term .. ' ' .. seq .. ' ' .. inc .. ' ' .. hold, 'PX', lifetime)
end

local function tell(key)
  redis.call('PUBLISH', 'baton:gates', key)
end
