package com.liveodds.push.partner;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads at most {@code limit} bytes of an answer body, then cancels the rest unread (the client closes that
 * connection instead of draining it), so a partner answering 600 MB costs 64 KiB. {@link #abort()} stops it at the
 * attempt's time-out, whatever the partner is still dribbling. Also the attempt's way to its answer: the future the JDK
 * client returns runs its dependents on the common async pool, which on a 2-core machine is a new thread per task.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

    private final int limit;
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private byte[] buffer = new byte[1024];
    private int size;
    private volatile HttpResponse.ResponseInfo info;
    private volatile Flow.Subscription subscription;
    private volatile boolean aborted;

    BoundedBody(int limit) {
        this.limit = limit;
    }

    /** The {@link HttpResponse.BodyHandler} of one exchange: keeps status and headers, reads the body here. */
    BoundedBody receiving(HttpResponse.ResponseInfo response) {
        this.info = response;
        return this;
    }

    /** Status and headers, once the body is complete. */
    HttpResponse.ResponseInfo info() {
        return info;
    }

    /** Completes on the client's executor when the body is read (or cut at the limit). */
    CompletableFuture<byte[]> body() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (aborted) {
            s.cancel();
        } else {
            s.request(1);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        for (ByteBuffer item : items) {
            int take = Math.min(item.remaining(), limit - size);
            if (size + take > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.min(limit, Math.max(buffer.length * 2, size + take)));
            }
            item.get(buffer, size, take);
            size += take;
            if (item.hasRemaining()) {
                // more than the limit: the rest is not read
                subscription.cancel();
                body.complete(Arrays.copyOf(buffer, size));
                return;
            }
        }
        if (!body.isDone()) {
            subscription.request(1);
        }
    }

    @Override
    public void onError(Throwable error) {
        body.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        body.complete(Arrays.copyOf(buffer, size));
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    /** Stops reading: the connection is dropped. */
    void abort() {
        aborted = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }
}
