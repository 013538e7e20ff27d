import { Layer } from "effect"
import { PendingAttachmentsLive } from "./Attachments/PendingAttachments.js"
import { OrganizationAccess } from "./Auth/OrganizationAccess.js"
import { Tokens } from "./Auth/Tokens.js"
import { BusinessHours } from "./BusinessHours/BusinessHours.js"
import { BusinessHoursExceptions } from "./BusinessHours/BusinessHoursExceptions.js"
import { Companies } from "./Companies/Companies.js"
import { Customers } from "./Customers/Customers.js"
import { Articles } from "./HelpCenter/Articles.js"
import { Collections } from "./HelpCenter/Collections.js"
import { Inboxes } from "./Inboxes/Inboxes.js"
import { Organizations } from "./Organizations/Organizations.js"
import { PresetFilters } from "./PresetFilters/PresetFilters.js"
import { SlaPolicies } from "./Sla/SlaPolicies.js"
import { Tags } from "./Tags/Tags.js"
import { Memberships } from "./Users/Memberships.js"
import { Users } from "./Users/Users.js"
import { Webhooks } from "./Webhooks/Webhooks.js"

/**
 * The directory's repositories and services in one layer, for code that calls them outside a request: the CLI,
 * the demo and tests. Each needs only the `SqlClient`. The HTTP groups do not use it: each group's layer
 * provides its own services.
 */
export const ServicesLive = Layer.mergeAll(
  Tokens.Default,
  Users.Default,
  Memberships.Default,
  Organizations.Default,
  Customers.Default,
  Companies.Default,
  Inboxes.Default,
  Tags.Default,
  SlaPolicies.Default,
  BusinessHours.Default,
  BusinessHoursExceptions.Default,
  OrganizationAccess.Default,
  PresetFilters.Default,
  Collections.Default,
  Articles.Default,
  Webhooks.Default,
  PendingAttachmentsLive
)
