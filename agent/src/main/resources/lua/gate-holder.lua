-- Who holds a group's gate key now, for the agents of the followers, and whether the Redis node
-- that keeps it may lose it on its own (an eviction policy under a memory limit).
-- KEYS[1] the gate key
-- Returns {holder, the node's maxmemory, its maxmemory-policy}: the holder is the live
-- hold's value, empty when the key is absent, released or run out.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local holder = ''
local held = redis.call('GET', KEYS[1])
if held then
  local sep = string.find(held, ' ', 1, true)
  if sep and tonumber(string.sub(held, 1, sep - 1)) > now then
    holder = string.sub(held, sep + 1)
  end
end
local info = redis.pcall('INFO', 'memory')
if type(info) ~= 'string' then
  info = '' -- INFO not permitted (ACL): the agent reports the policy as unknown
end
local maxmemory = string.match(info, 'maxmemory:(%d+)') or ''
local policy = string.match(info, 'maxmemory_policy:([%w-]+)') or ''
return {holder, maxmemory, policy}
