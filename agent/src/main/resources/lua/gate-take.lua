-- An agent whose pod is confirmed leader takes its group's gate key, so that its gate may open.
-- KEYS[1] the gate key, baton:{gate:<namespace>/<group>}
-- ARGV[1] this hold's value (agent:<namespace>/<pod>:<term>:<random>, fresh for every hold)
-- ARGV[2] the hold's time-to-live in ms (confirmWithin)   ARGV[3] the key's own lifetime in ms
-- The key holds "<until> <value>": <until> is the hold's end in Redis's own milliseconds, 0 once
-- its holder let go (it closed its gates first). The key's own PX only clears out groups gone.
-- Returns 1 when the hold is this one's now and its gate may open at once (the key was released,
-- ran out, or is already this hold's), 2 when the key was absent: it may have been lost with a
-- holder still open (a restart without data, an eviction, a failover to a replica that lagged),
-- so the gate opens only after one whole ttl of holding it, confirmed by a renewal. 0: another
-- hold is alive, and this gate stays shut.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('GET', KEYS[1])
local mine = (now + tonumber(ARGV[2])) .. ' ' .. ARGV[1]
if held then
  local sep = string.find(held, ' ', 1, true)
  local holder = sep and string.sub(held, sep + 1) or ''
  local untilMs = sep and tonumber(string.sub(held, 1, sep - 1)) or 0
  if holder ~= ARGV[1] and untilMs > now then
    return 0
  end
  redis.call('SET', KEYS[1], mine, 'PX', ARGV[3])
  if holder ~= ARGV[1] then
    redis.call('PUBLISH', 'baton:gates', KEYS[1])
  end
  return 1
end
redis.call('SET', KEYS[1], mine, 'PX', ARGV[3])
redis.call('PUBLISH', 'baton:gates', KEYS[1])
return 2
