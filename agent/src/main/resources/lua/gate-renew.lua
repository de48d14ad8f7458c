-- A hold extends itself; it never takes a key another holds, nor one that ran out.
-- KEYS[1] the gate key
-- ARGV[1] this hold's value   ARGV[2] time-to-live in ms   ARGV[3] the key's own lifetime in ms
-- ARGV[4] "1" when the agent's gate is open and within its deadline: then an absent key (lost) is
-- taken again at once, since no other gate can have opened while this hold's deadline lasted.
-- Returns 1 when extended, 3 when re-taken, 2 when the key is absent (lost), 0 when another's or
-- released or run out (the gate must close at once).
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local held = redis.call('GET', KEYS[1])
local mine = (now + tonumber(ARGV[2])) .. ' ' .. ARGV[1]
if not held then
  if ARGV[4] == '1' then
    redis.call('SET', KEYS[1], mine, 'PX', ARGV[3])
    redis.call('PUBLISH', 'baton:gates', KEYS[1])
    return 3
  end
  return 2
end
local sep = string.find(held, ' ', 1, true)
local holder = sep and string.sub(held, sep + 1) or ''
local untilMs = sep and tonumber(string.sub(held, 1, sep - 1)) or 0
if holder == ARGV[1] and untilMs > now then
  redis.call('SET', KEYS[1], mine, 'PX', ARGV[3])
  return 1
end
return 0
