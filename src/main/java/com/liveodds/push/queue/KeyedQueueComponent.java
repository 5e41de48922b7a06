package com.liveodds.push.queue;

import java.util.HashMap;
import java.util.Map;

import org.apache.camel.Endpoint;
import org.apache.camel.support.DefaultComponent;

/**
 * {@code liveoddsQueue}: ordered delivery per key, a keyed seda. Bound under a name of the bundle's own
 * ({@code liveoddsQueue}), so a host's components stay untouched. The queues live in the component, one per name,
 * shared by every endpoint of that name (as seda's are); see {@link KeyedQueueEndpoint} for the options.
 */
public class KeyedQueueComponent extends DefaultComponent {

    private final Map<String, KeyedQueue> queues = new HashMap<>();

    @Override
    protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) throws Exception {
        KeyedQueueEndpoint endpoint = new KeyedQueueEndpoint(uri, this, remaining);
        setProperties(endpoint, parameters);
        return endpoint;
    }

    synchronized KeyedQueue queue(String name) {
        return queues.computeIfAbsent(name, KeyedQueue::new);
    }
}
