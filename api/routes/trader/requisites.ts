/** The trader's own requisites and its presence (online toggle, heartbeat, working hours). */
import { defineRoute } from '../../route';
import { traderOf } from '../../auth/authenticate';
import {
  createTraderRequisiteBody,
  presenceResponse,
  requisiteIdParams,
  traderRequisiteList,
  traderRequisiteResponse,
  updatePresenceBody,
  updateTraderRequisiteBody,
} from '../../schemas/trader-requisites';
import {
  addTraderRequisite,
  archiveTraderRequisite,
  editTraderRequisite,
  getTraderRequisite,
  listTraderRequisites,
  pauseTraderRequisite,
  resumeTraderRequisite,
} from '../../services/trader-requisites';
import { getPresence, heartbeat, updatePresence } from '../../services/presence';
import { REQUISITE_TRANSITIONS } from '../../../domain/state/requisites';
import { EXAMPLE_TRADER_PRESENCE, EXAMPLE_TRADER_REQUISITE, EXAMPLE_TRADER_REQUISITE_CREATE } from '../../schemas/examples';
import { traderActor } from '../../services/deal-workflows';

const tags = ['Trader: requisites'];
const presenceTags = ['Trader: presence'];

const moveRoute = (move: 'pause' | 'resume' | 'archive', operationId: string, summary: string, run: typeof pauseTraderRequisite) =>
  defineRoute(
    {
      method: 'post',
      path: `/requisites/{requisite_id}/${move}`,
      operationId,
      auth: 'trader',
      summary,
      description: `${REQUISITE_TRANSITIONS[move].effect} Allowed from ${REQUISITE_TRANSITIONS[move].from.join(', ')}.`,
      tags,
      params: requisiteIdParams,
      response: traderRequisiteResponse,
      errors: [404],
      audit: { action: `requisite.${move}`, objectType: 'requisite', by: 'service' },
      example: { response: { requisite: { ...EXAMPLE_TRADER_REQUISITE, status: REQUISITE_TRANSITIONS[move].to } } },
    },
    async ({ identity, params, actor }, deps) => ({ requisite: await run(deps, traderOf(identity).traderId, params.requisite_id, traderActor(actor)) }),
  );

export const traderRequisiteRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/requisites',
      operationId: 'traderListRequisites',
      auth: 'trader',
      summary: 'My requisites, oldest first, each with its status and limits',
      tags,
      response: traderRequisiteList,
      example: {
        response: {
          data: [EXAMPLE_TRADER_REQUISITE],
          payment_methods: [{ slug: 'card-rub', name: 'Bank card (RUB)', currency: 'RUB', exponent: 2, requisite_types: ['BANK_CARD'] }],
        },
      },
    },
    ({ identity }, deps) => listTraderRequisites(deps, traderOf(identity).traderId),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/requisites',
      operationId: 'traderCreateRequisite',
      auth: 'trader',
      summary: 'Add a requisite (card, phone or IBAN) with its limits; it waits for an operator’s approval before its first deal',
      tags,
      body: createTraderRequisiteBody,
      status: 201,
      response: traderRequisiteResponse,
      audit: { action: 'trader.requisite_add', objectType: 'requisite', by: 'service' },
      example: { request: EXAMPLE_TRADER_REQUISITE_CREATE, response: { requisite: { ...EXAMPLE_TRADER_REQUISITE, status: 'PENDING_APPROVAL' } } },
    },
    async ({ identity, body, actor }, deps) => ({ requisite: await addTraderRequisite(deps, traderOf(identity).traderId, body, traderActor(actor)) }),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/requisites/{requisite_id}',
      operationId: 'traderGetRequisite',
      auth: 'trader',
      summary: 'One of my requisites',
      tags,
      params: requisiteIdParams,
      response: traderRequisiteResponse,
      errors: [404],
      example: { response: { requisite: EXAMPLE_TRADER_REQUISITE } },
    },
    async ({ identity, params }, deps) => ({ requisite: await getTraderRequisite(deps, traderOf(identity).traderId, params.requisite_id) }),
  ),
  defineRoute(
    {
      method: 'patch',
      path: '/requisites/{requisite_id}',
      operationId: 'traderUpdateRequisite',
      auth: 'trader',
      summary: 'Change a requisite’s payment details (back to approval) or its limits (no approval)',
      description: `${REQUISITE_TRANSITIONS.edit_details.effect} ${REQUISITE_TRANSITIONS.edit_limits.effect} An ARCHIVED requisite is not edited.`,
      tags,
      params: requisiteIdParams,
      body: updateTraderRequisiteBody,
      response: traderRequisiteResponse,
      errors: [404],
      audit: { action: 'requisite.edit_limits', objectType: 'requisite', by: 'service' },
      example: { request: { daily_limit: 5_000_000, max_live_deals: 3 }, response: { requisite: EXAMPLE_TRADER_REQUISITE } },
    },
    async ({ identity, params, body, actor }, deps) => ({
      requisite: await editTraderRequisite(deps, traderOf(identity).traderId, params.requisite_id, body, traderActor(actor)),
    }),
  ),
  moveRoute('pause', 'traderPauseRequisite', 'Pause a requisite: no new deal reaches it', pauseTraderRequisite),
  moveRoute('resume', 'traderResumeRequisite', 'Resume a paused requisite', resumeTraderRequisite),
  moveRoute('archive', 'traderArchiveRequisite', 'Archive a requisite for good', archiveTraderRequisite),
  defineRoute(
    {
      method: 'get',
      path: '/presence',
      operationId: 'traderGetPresence',
      auth: 'trader',
      summary: 'My presence: online or not (and why not), my last heartbeat, my working hours',
      tags: presenceTags,
      response: presenceResponse,
      example: { response: { presence: EXAMPLE_TRADER_PRESENCE } },
    },
    async ({ identity }, deps) => ({ presence: await getPresence(deps, traderOf(identity).traderId) }),
  ),
  defineRoute(
    {
      method: 'put',
      path: '/presence',
      operationId: 'traderUpdatePresence',
      auth: 'trader',
      summary: 'Go online or offline, and set or clear working hours',
      description:
        'Online starts a fresh heartbeat: the app then sends one about every 30 s; a trader whose heartbeat is older than the timeout ' +
        'gets no deal and is paused (offline_reason heartbeat_lost) until it goes online again.',
      tags: presenceTags,
      body: updatePresenceBody,
      response: presenceResponse,
      audit: { action: 'trader.presence_set', objectType: 'trader', by: 'service' },
      example: {
        request: { online: true, working_hours: { timezone: 'Europe/Moscow', from: '09:00', to: '21:00' } },
        response: { presence: EXAMPLE_TRADER_PRESENCE },
      },
    },
    async ({ identity, body, actor }, deps) => ({ presence: await updatePresence(deps, traderOf(identity).traderId, body, traderActor(actor)) }),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/presence/heartbeat',
      operationId: 'traderPresenceHeartbeat',
      auth: 'trader',
      summary: 'The app’s heartbeat while it is open and online; answers my presence',
      description: 'Counts only while online: a trader already paused for silence stays offline until it goes online again.',
      tags: presenceTags,
      response: presenceResponse,
      example: { response: { presence: EXAMPLE_TRADER_PRESENCE } },
    },
    async ({ identity }, deps) => ({ presence: await heartbeat(deps, traderOf(identity).traderId) }),
  ),
];
