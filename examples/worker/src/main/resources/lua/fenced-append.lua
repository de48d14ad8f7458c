-- Append an entry to a journal, fenced by the writer's term: a writer whose term is below the
-- highest term the journal has seen is refused, so a leader that lost its leadership but has not
-- noticed yet cannot write after its successor.
-- KEYS[1] the fence (highest term seen)      KEYS[2] the journal (a list)
-- ARGV[1] the writer's term                  ARGV[2] the entry
-- Returns -1 when appended, else the higher term that refused it.
local highest = tonumber(redis.call('GET', KEYS[1]) or '0')
local term = tonumber(ARGV[1])
if term < highest then
  return highest
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2])
return -1
