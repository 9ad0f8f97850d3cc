/** The events group (after Stripe's /v1/events): one module per group, assembled in `Api.ts`. */
import { Event, Events } from "@tender/core"
import { authenticated, group, list, retrieve } from "./shared.js"

/** Events: what happened to a merchant's resources, in its environment, as webhooks deliver it (D7). @since 0.1.0 */
export class EventsGroup extends group("events", "Events: every change of a merchant's resources, as D7 envelopes, kept at least 30 days (docs/events.md).")
  .add(retrieve("/events/:id", "Retrieve an event", Event.Envelope))
  .add(list("/events", "List events", Events.ListParams, Event.Envelope, "EventList"))
  .pipe(authenticated)
{}
