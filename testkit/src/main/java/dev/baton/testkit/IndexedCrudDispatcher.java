package dev.baton.testkit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.CrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fabric8's CRUD dispatcher, with its objects also indexed by resource, namespace and name.
 *
 * <p>The stock dispatcher copies and scans every stored object on every request, including a GET,
 * PATCH or DELETE of one named object: with 30,000 pods stored, each such request costs about 25 ms
 * of CPU, where a real API server finds the object by its key. A benchmark at cluster size then
 * measures the mock's scan rather than the operator. Here a request that names a namespaced object
 * sees only the stored objects with that resource, namespace and name, which are the only ones the
 * stock filter could match, so every answer, resource version and watch event stays the same. Lists
 * still scan, as before.
 *
 * <p>One more difference from the stock mock, also toward a real API server: a watch that gives the
 * resourceVersion its list was taken at (as every informer's does) starts with the objects changed
 * after that version, not with every object again. The stock mock sent all of them as ADDED on each
 * watch start and restart: 30,000 pods decoded a second time right after the operator's first
 * listing, queued ahead of the events a benchmark was timing. A watch without a version, or with
 * "0", still starts with every object, as on a real server.
 */
final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

  /** The object the request on this thread names, while the stock code handles it. */
  private static final ThreadLocal<ObjectKey> NAMED = new ThreadLocal<>();

  private static final Logger LOG = LoggerFactory.getLogger(IndexedCrudDispatcher.class);
  private static final JsonFactory JSON = new JsonFactory();

  private final NamedObjects objects = new NamedObjects();

  // The stock watch plumbing is package-private; these reach it without copying it.
  private final ReadWriteLock lock;
  private final Set<Object> listeners;
  private final Constructor<?> newListener;
  private final Method listenerMatches;
  private final Method send;

  @SuppressWarnings("unchecked")
  IndexedCrudDispatcher() {
    try {
      // The stock store is a field the subclass cannot choose; it is empty until the first request.
      Field map = CrudDispatcher.class.getDeclaredField("map");
      map.setAccessible(true);
      map.set(this, objects);
      lock = (ReadWriteLock) field("lock").get(this);
      listeners = (Set<Object>) field("watchEventListeners").get(this);
      Class<?> listener =
          Class.forName("io.fabric8.kubernetes.client.server.mock.WatchEventsListener");
      newListener =
          listener.getDeclaredConstructor(
              Context.class, AttributeSet.class, Set.class, Logger.class, Consumer.class);
      newListener.setAccessible(true);
      listenerMatches = listener.getMethod("attributeMatches", AttributeSet.class);
      listenerMatches.setAccessible(true);
      send = listener.getMethod("sendWebSocketResponse", String.class, Watcher.Action.class);
      send.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("this Fabric8 mock server is not the one indexed here", e);
    }
  }

  private static Field field(String name) throws NoSuchFieldException {
    Field f = KubernetesCrudDispatcher.class.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  /** As the stock watch, except that a watch from a version starts after that version. */
  @Override
  public MockResponse handleWatch(String path) {
    Map<String, String> params = query(path);
    long since = parseVersion(params.get("resourceVersion"));
    if (since <= 0) {
      return super.handleWatch(path);
    }
    AttributeSet watched = getAttributeExtractor().fromPath(path);
    String selector = params.getOrDefault("fieldSelector", "");
    for (String term : selector.split(",")) {
      if (term.startsWith("metadata.name=")) {
        watched = watched.add(new Attribute("name", term.substring("metadata.name=".length())));
      }
    }
    try {
      Consumer<Object> onOpen = listener -> startAfter(listener, since);
      Object listener = newListener.newInstance(context, watched, listeners, LOG, onOpen);
      listeners.add(listener);
      return new MockResponse().withWebSocketUpgrade((WebSocketListener) listener);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  private void startAfter(Object listener, long since) {
    lock.readLock().lock();
    try {
      for (Map.Entry<AttributeSet, String> entry : objects.changedAfter(since)) {
        if ((boolean) listenerMatches.invoke(listener, entry.getKey())) {
          send.invoke(listener, entry.getValue(), Watcher.Action.ADDED);
        }
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    } finally {
      lock.readLock().unlock();
    }
  }

  private static Map<String, String> query(String path) {
    Map<String, String> params = new HashMap<>();
    int q = path.indexOf('?');
    if (q < 0) {
      return params;
    }
    for (String pair : path.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        params.put(
            pair.substring(0, eq),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  private static long parseVersion(String text) {
    try {
      return text == null || text.isEmpty() ? 0 : Long.parseLong(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** metadata.resourceVersion of a stored object, 0 when it has none. */
  static long resourceVersion(String json) {
    try (JsonParser p = JSON.createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return 0;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        p.nextToken();
        if (!field.equals("metadata")) {
          p.skipChildren();
          continue;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          p.nextToken();
          if (key.equals("resourceVersion")) {
            return parseVersion(p.getValueAsString());
          }
          p.skipChildren();
        }
        return 0;
      }
      return 0;
    } catch (IOException e) {
      return 0;
    }
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    ObjectKey named = named(request);
    if (named == null) {
      return super.dispatch(request);
    }
    NAMED.set(named);
    try {
      return super.dispatch(request);
    } finally {
      NAMED.remove();
    }
  }

  /**
   * How many times the whole store was handed out to be scanned: lists, watches, unnamed queries.
   */
  long fullScans() {
    return objects.fullScans.get();
  }

  /** Creates, updates and patches look their object up here, by the name in the body or path. */
  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
    ObjectKey key = ObjectKey.of(query);
    if (key == null) {
      return super.findResource(query);
    }
    for (Map.Entry<AttributeSet, String> entry : objects.named(key)) {
      if (entry.getKey().matches(query)) {
        return entry;
      }
    }
    return null;
  }

  private ObjectKey named(RecordedRequest request) {
    String method = request.getMethod();
    String path = request.getPath();
    boolean one =
        switch (method) {
          case "GET" -> !path.contains("watch=true") && !path.contains("watch=1");
          case "PATCH", "PUT", "DELETE" -> true;
          default -> false;
        };
    return one ? ObjectKey.of(getAttributeExtractor().fromPath(path)) : null;
  }

  /** Resource (plural), namespace and name: what a real API server keys an object by. */
  record ObjectKey(String plural, String namespace, String name) {

    /** The key a query names exactly, or null when it names no single namespaced object. */
    static ObjectKey of(AttributeSet query) {
      String plural = exact(query, "plural");
      String namespace = exact(query, "namespace");
      String name = exact(query, "name");
      return plural == null || namespace == null || name == null
          ? null
          : new ObjectKey(plural, namespace, name);
    }

    /** The key a stored object is filed under; parts it lacks are null. */
    static ObjectKey filed(AttributeSet stored) {
      return new ObjectKey(
          exact(stored, "plural"), exact(stored, "namespace"), exact(stored, "name"));
    }

    private static String exact(AttributeSet set, String key) {
      Attribute attribute = set.getAttribute(key);
      if (attribute == null
          || attribute.getType() != AttributeType.WITH
          || attribute.getValues().size() != 1) {
        return null;
      }
      String value = attribute.getValues().get(0).toString();
      // "*" matches any value in the mock's comparison, so it names nothing exactly.
      return value == null || value.equals("*") ? null : value;
    }
  }

  /**
   * The stock store (a synchronized map in insertion order, which lists keep), plus an index by
   * {@link ObjectKey}. While a request that names an object is handled on this thread, {@link
   * #entrySet()} shows only that object's entries.
   */
  private static final class NamedObjects extends AbstractMap<AttributeSet, String> {

    private final Map<AttributeSet, String> all =
        Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<ObjectKey, Set<AttributeSet>> byKey = new HashMap<>();
    private final AtomicLong fullScans = new AtomicLong();
    private final Map<AttributeSet, Long> versions = new HashMap<>();

    /** Stored objects whose resourceVersion is above the given one, in store order. */
    List<Map.Entry<AttributeSet, String>> changedAfter(long version) {
      synchronized (all) {
        List<Map.Entry<AttributeSet, String>> changed = new ArrayList<>();
        for (Map.Entry<AttributeSet, String> e : all.entrySet()) {
          if (versions.getOrDefault(e.getKey(), Long.MAX_VALUE) > version) {
            changed.add(new SimpleImmutableEntry<>(e.getKey(), e.getValue()));
          }
        }
        return changed;
      }
    }

    Set<Map.Entry<AttributeSet, String>> named(ObjectKey key) {
      synchronized (all) {
        Set<AttributeSet> keys = byKey.get(key);
        if (keys == null) {
          return Set.of();
        }
        Set<Map.Entry<AttributeSet, String>> entries = new LinkedHashSet<>();
        for (AttributeSet k : keys) {
          entries.add(new SimpleImmutableEntry<>(k, all.get(k)));
        }
        return entries;
      }
    }

    @Override
    public Set<Map.Entry<AttributeSet, String>> entrySet() {
      ObjectKey named = NAMED.get();
      if (named == null) {
        fullScans.incrementAndGet();
        return all.entrySet();
      }
      return named(named);
    }

    @Override
    public String put(AttributeSet key, String value) {
      synchronized (all) {
        String previous = all.put(key, value);
        versions.put(key, resourceVersion(value));
        if (previous == null) {
          byKey.computeIfAbsent(ObjectKey.filed(key), k -> new LinkedHashSet<>()).add(key);
        }
        return previous;
      }
    }

    @Override
    public String remove(Object key) {
      synchronized (all) {
        if (!all.containsKey(key)) {
          return null;
        }
        String previous = all.remove(key);
        versions.remove(key);
        ObjectKey filed = ObjectKey.filed((AttributeSet) key);
        Set<AttributeSet> keys = byKey.get(filed);
        if (keys != null) {
          keys.remove(key);
          if (keys.isEmpty()) {
            byKey.remove(filed);
          }
        }
        return previous;
      }
    }

    @Override
    public String get(Object key) {
      return all.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
      return all.containsKey(key);
    }

    @Override
    public int size() {
      return all.size();
    }

    @Override
    public Set<AttributeSet> keySet() {
      return all.keySet();
    }

    @Override
    public Collection<String> values() {
      return all.values();
    }

    @Override
    public void clear() {
      synchronized (all) {
        all.clear();
        byKey.clear();
        versions.clear();
      }
    }
  }
}
