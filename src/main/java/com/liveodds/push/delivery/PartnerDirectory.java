package com.liveodds.push.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every partner's beans ({@link PartnerBeans}), in the order of {@code liveodds.partners}, by the partner's name (empty
 * for the single partner of {@code liveodds.partner.*}): bound once as {@code liveoddsPartnerDirectory}.
 */
public class PartnerDirectory {

    private final List<PartnerBeans> partners = new ArrayList<>();

    public void add(PartnerBeans partner) {
        partners.add(partner);
    }

    public List<PartnerBeans> all() {
        return List.copyOf(partners);
    }

    public Optional<PartnerBeans> of(String name) {
        return partners.stream().filter(p -> p.settings().name().equals(name)).findFirst();
    }
}
