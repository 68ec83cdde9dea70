extension MetricsExposition {
    static func pipeline(_ reading: MetricsReading, into out: inout PrometheusText) {
        out.family("storekeeper_notification_queue_jobs", .gauge, help: "Notifications queued for the worker (ready or leased).")
        out.sample("storekeeper_notification_queue_jobs", Int64(reading.queueDepth))
        out.family("storekeeper_queue_oldest_job_age_seconds", .gauge, help: "How long the oldest notification still "
                   + "queued for the worker (ready, backing off or leased) has waited since it was enqueued; 0 when the queue is empty.")
        out.sample("storekeeper_queue_oldest_job_age_seconds", [:], reading.oldestJobAgeSeconds)
        out.family("storekeeper_notification_dead_letters", .gauge, help: "Notifications the worker gave up on.")
        out.sample("storekeeper_notification_dead_letters", Int64(reading.deadLetters))
        out.family("storekeeper_notification_last_dead_letter_timestamp_seconds", .gauge,
                   help: "When the worker last gave up on a notification, labelled with the error code of its last attempt.")
        if let note = reading.lastDeadLetter {
            out.sample("storekeeper_notification_last_dead_letter_timestamp_seconds", ["code": note.code], Double(note.at) / 1000)
        }
        webhooks(reading, into: &out)
        out.family("storekeeper_reconciliation_corrections_total", .counter,
                   help: "Stored statuses reconcile corrected from Apple's answer (each one a lost notification), by kind.")
        for (app, counts) in reading.corrections.sorted(by: { $0.key < $1.key }) {
            for (kind, count) in counts.kinds.sorted(by: { $0.key < $1.key }) {
                out.sample("storekeeper_reconciliation_corrections_total", ["app": app, "kind": kind], Int64(count))
            }
        }
        out.family("storekeeper_event_log_last_sequence", .gauge, help: "The event log's last sequence.")
        out.sample("storekeeper_event_log_last_sequence", reading.lastSequence)
        out.family("storekeeper_metrics_events_behind", .gauge, help: "Events in the log the metrics have not counted yet.")
        out.sample("storekeeper_metrics_events_behind", max(0, reading.lastSequence - reading.countedSequence))
    }

    static func webhooks(_ reading: MetricsReading, into out: inout PrometheusText) {
        out.family("storekeeper_webhook_events", .gauge, help: "Events per webhook endpoint and state: pending (not yet "
                   + "delivered, retries included), failing (being retried), dead (dead-lettered).")
        for status in reading.webhooks {
            let failing = status.failures.values.reduce(0, +)
            for (state, count) in [("pending", status.pending), ("failing", failing), ("dead", status.deadLetters.count)] {
                out.sample("storekeeper_webhook_events", ["endpoint": status.name, "state": state], Int64(count))
            }
        }
        out.family("storekeeper_webhook_deliveries_total", .counter, help: "Delivery attempts per webhook endpoint and result: "
                   + "delivered (answered 2xx), failed (to be retried), dead (the last attempt, dead-lettered).")
        for status in reading.webhooks {
            for (result, count) in (reading.webhookDeliveries[status.name] ?? WebhookDeliveryCounts()).results {
                out.sample("storekeeper_webhook_deliveries_total", ["endpoint": status.name, "result": result], Int64(count))
            }
        }
        out.family("storekeeper_webhook_oldest_pending_age_seconds", .gauge,
                   help: "How long the oldest event pending for the endpoint has been in the log.")
        for status in reading.webhooks {
            guard let age = status.oldestPendingAgeSeconds else { continue }
            out.sample("storekeeper_webhook_oldest_pending_age_seconds", ["endpoint": status.name], age)
        }
    }
}
