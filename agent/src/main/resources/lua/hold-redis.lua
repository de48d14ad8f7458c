-- What the Redis node that keeps a hold key does with it, read by every agent that holds, takes or
-- follows the key, at its start and then every 5 s, through INFO (no CONFIG permission needed).
-- KEYS[1] the hold key (only to reach its node on Redis Cluster)
-- Returns {maxmemory, maxmemory-policy, aof_enabled, rdb_saves, role, connected_slaves,
-- min_slaves_good_slaves, incarnation, Redis's time in ms}; a field INFO did not give is ''
-- (INFO refused by an ACL: every field '').
--#include hold-value
local function info(section)
  local text = redis.pcall('INFO', section)
  if type(text) ~= 'string' then
    return ''
  end
  return text
end
local function field(text, name)
  return string.match(text, name .. ':([%w-]+)') or ''
end
local memory = info('memory')
local persistence = info('persistence')
local replication = info('replication')
local inc = ''
if replication ~= '' then
  inc = incarnation()
end
return {
  field(memory, 'maxmemory'), field(memory, 'maxmemory_policy'),
  field(persistence, 'aof_enabled'), field(persistence, 'rdb_saves'),
  field(replication, 'role'), field(replication, 'connected_slaves'),
  field(replication, 'min_slaves_good_slaves'), inc, millis()
}
