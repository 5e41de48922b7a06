package com.example.host;

import org.apache.camel.main.Main;

/** The host application: a plain Camel Main with its own routes and settings (application.properties). */
public final class HostApplication {

    private HostApplication() {
    }

    public static void main(String[] args) throws Exception {
        Main main = new Main(HostApplication.class);
        main.run(args);
    }
}
