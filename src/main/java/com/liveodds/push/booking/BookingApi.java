package com.liveodds.push.booking;

import java.io.IOException;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.liveodds.push.httpapi.HttpProblem;
import com.liveodds.push.partner.Booking;
import org.apache.camel.Header;

/**
 * The partner's booking API (contract 20): {@code PUT|DELETE /v1/liveodds/{partnerId}/booking/match:{id}} books and
 * unbooks a match, {@code GET /v1/liveodds/{partnerId}/booking} lists them. Each change goes to the partner's
 * {@link Booking}, which writes its file (the one record) and is in force for pushes and the fixtures listing at once.
 * Called behind the fixtures API's bearer check, with the partner id of the path already known to be the token's.
 */
public class BookingApi {

    /** What a path may name: {@code match:} and 1 to 30 ASCII digits (as a booking file line). */
    public static final Pattern MATCH_ID = Pattern.compile("match:[0-9]{1,30}");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Partner id → its booking. */
    private Map<String, Booking> bookings = Map.of();

    public void setBookings(Map<String, Booking> byPartnerId) {
        bookings = Map.copyOf(byPartnerId);
    }

    /** {@code 200 {"match", "booked": true}}, whether or not it was booked before. */
    public String book(@Header("partnerId") String partnerId, @Header("matchId") String matchId) throws IOException {
        String match = validMatch(matchId);
        Booking booking = booking(partnerId);
        if (!booking.isAll()) {
            booking.book(match);
        }
        return answer(match, true);
    }

    /** {@code 200 {"match", "booked": false}}; a partner on {@code booking=all} cannot unbook one match: 409. */
    public String unbook(@Header("partnerId") String partnerId, @Header("matchId") String matchId) throws IOException {
        String match = validMatch(matchId);
        Booking booking = booking(partnerId);
        if (booking.isAll()) {
            throw new HttpProblem(409, "conflict", "this partner books every match (booking all): ask us to give it a "
                    + "booking file to unbook single matches");
        }
        booking.unbook(match);
        return answer(match, false);
    }

    /** {@code {"booking": "all"|"file", "matches": [...]}}, the matches sorted; none listed for {@code all}. */
    public String list(@Header("partnerId") String partnerId) {
        Booking booking = booking(partnerId);
        ObjectNode body = JSON.createObjectNode();
        body.put("booking", booking.isAll() ? "all" : "file");
        var matches = body.putArray("matches");
        if (!booking.isAll()) {
            new TreeSet<>(booking.matchIds()).forEach(matches::add);
        }
        return body.toString();
    }

    private Booking booking(String partnerId) {
        return bookings.getOrDefault(partnerId, Booking.ALL);
    }

    /** The match id of the path, or 400; the answer never quotes what was sent. */
    public static String validMatch(String matchId) {
        if (matchId == null || matchId.length() > 36 || !MATCH_ID.matcher(matchId).matches()) {
            throw new HttpProblem(400, "invalid_match", "a match id is match: followed by 1 to 30 digits 0-9");
        }
        return matchId;
    }

    private static String answer(String match, boolean booked) {
        ObjectNode body = JSON.createObjectNode();
        body.put("match", match);
        body.put("booked", booked);
        return body.toString();
    }
}
