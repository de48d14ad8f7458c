-- A gate that has closed every connection marks its hold released and tells the waiting
-- successors at once: a released key is taken without waiting, an absent one is not.
-- KEYS[1] the gate key (its name is the message on the channel baton:gates)
-- ARGV[1] this hold's value   ARGV[2] the key's own lifetime in ms
-- Returns 1 when the key was this hold's and is released now, else 0 (another's, or released).
local held = redis.call('GET', KEYS[1])
if not held then
  return 0
end
local sep = string.find(held, ' ', 1, true)
if not sep or string.sub(held, sep + 1) ~= ARGV[1] or string.sub(held, 1, sep - 1) == '0' then
  return 0
end
redis.call('SET', KEYS[1], '0 ' .. ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', 'baton:gates', KEYS[1])
return 1
