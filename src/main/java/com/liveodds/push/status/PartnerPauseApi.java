package com.liveodds.push.status;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.httpapi.HttpProblem;
import com.liveodds.push.partner.PartnerPauses;
import org.apache.camel.Header;

/**
 * {@code POST /admin/partners/{name}/pause} and {@code .../resume} (contract 24, routes/pauses.yaml), behind the admin
 * token: {@code 200 {"partner": name, "paused": true|false}} whether or not it was paused before; a name that is neither
 * a partner of {@code liveodds.partners} nor the single partner's id answers 404.
 */
public class PartnerPauseApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final PartnerPauses pauses;

    public PartnerPauseApi(PartnerPauses pauses) {
        this.pauses = pauses;
    }

    public String pause(@Header("name") String name) {
        pauses.pause(partner(name), "paused by an operator (POST /admin/partners/{name}/pause)");
        return answer(name, true);
    }

    public String resume(@Header("name") String name) {
        pauses.resume(partner(name));
        return answer(name, false);
    }

    private String partner(String name) {
        return pauses.find(name).orElseThrow(() -> new HttpProblem(404, "not_found",
                "no such partner: a name of liveodds.partners, or the single partner's id"));
    }

    private static String answer(String name, boolean paused) {
        ObjectNode body = JSON.createObjectNode();
        body.put("partner", name);
        body.put("paused", paused);
        return body.toString();
    }
}
