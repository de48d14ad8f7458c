-- Fragment, included by every gate script: the gate key's value, and which Redis wrote it.
-- The key holds '<state> <term> <seq> <incarnation> <hold>':
--   state        A: taken while the key was absent, not yet proven, so its gate is shut;
--                H: held and proven, its gate may be open; R: released, its gate closed
--   term         the operator's term the hold was taken for: a take for a lower term is refused
--   seq          bumped by every renewal: a taker that finds the same value twice, a whole
--                confirmWithin apart by its own clock, knows the holder renewed nothing between
--   incarnation  '<run_id>.<master_replid>' of the Redis that wrote it. A restart (empty, or from
--                an RDB or AOF file) has another run id, a promoted replica another replication
--                id: a value written by another incarnation may be older than what was last
--                written, so it counts as absent
--   hold         agent:<namespace>/<pod>:<term>:<n>[@<pod IP>], fresh for every take; compared
--                whole, read by followers for who leads and where
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
-- (another incarnation's, or one of an older agent's format), or nil when the key is absent.
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

local function write(key, state, term, seq, inc, hold, lifetime)
  redis.call('SET', key, state .. ' ' .. term .. ' ' .. seq .. ' ' .. inc .. ' ' .. hold, 'PX', lifetime)
end

local function tell(key)
  redis.call('PUBLISH', 'baton:gates', key)
end
