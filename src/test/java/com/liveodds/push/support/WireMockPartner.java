package com.liveodds.push.support;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import java.util.List;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;

/** A partner on 127.0.0.1 made of WireMock: token endpoint at /auth/oauth/token, push receiver under /partner. */
public final class WireMockPartner implements AutoCloseable {

    public static final String TOKEN = "tok-0001";
    private final WireMockServer server;

    public WireMockPartner() {
        server = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        server.start();
    }

    /** A token endpoint that hands out {@link #TOKEN}, valid an hour, and a receiver that takes every push. */
    public WireMockPartner acceptingEverything() {
        tokenEndpointIssuing(TOKEN, 3600);
        server.stubFor(post(urlPathMatching("/partner/v1/liveodds/.*")).willReturn(aResponse().withStatus(202)
                .withHeader("Content-Type", "application/json").withBody("{\"status\":\"accepted\"}")));
        return this;
    }

    public WireMockPartner tokenEndpointIssuing(String token, int expiresIn) {
        server.stubFor(post(urlEqualTo("/auth/oauth/token")).willReturn(aResponse().withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":" + expiresIn + "}")));
        return this;
    }

    public WireMockServer server() {
        return server;
    }

    public String baseUrl() {
        return server.baseUrl() + "/partner";
    }

    public String authUrl() {
        return server.baseUrl() + "/auth";
    }

    public List<LoggedRequest> pushes() {
        return server.findAll(postRequestedFor(urlPathMatching("/partner/v1/liveodds/.*")));
    }

    public List<LoggedRequest> pushes(String type) {
        return server.findAll(postRequestedFor(urlPathMatching("/partner/v1/liveodds/.*/" + type)));
    }

    public List<LoggedRequest> tokenRequests() {
        return server.findAll(postRequestedFor(urlEqualTo("/auth/oauth/token")));
    }

    @Override
    public void close() {
        server.stop();
    }
}
