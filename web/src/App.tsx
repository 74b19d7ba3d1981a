import { AppShell, Burger, Button, Center, Group, Loader, NavLink, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { lazy, Suspense, type ReactNode } from 'react';
import { Link, Navigate, Route, Routes, useLocation } from 'react-router';
import { AutomationEditorPage } from './pages/AutomationEditor.tsx';
import { AutomationsPage } from './pages/Automations.tsx';
import { CampaignsPage } from './pages/Campaigns.tsx';
import { ConfirmSignUpPage } from './pages/ConfirmSignUp.tsx';
import { ContactPage } from './pages/Contact.tsx';
import { ContactsPage } from './pages/Contacts.tsx';
import { InboxPage } from './pages/Inbox.tsx';
import { KeysPage } from './pages/Keys.tsx';
import { ListsPage } from './pages/Lists.tsx';
import { FormEditorPage, FormsPage } from './pages/Forms.tsx';
import { TemplateEditorPage, TemplatesPage } from './pages/Templates.tsx';
import { SegmentEditorPage, SegmentsPage } from './pages/Segments.tsx';
import { SuppressionsPage } from './pages/Suppressions.tsx';
import { DomainsPage } from './pages/Domains.tsx';
import { OverviewPage } from './pages/Overview.tsx';
import { ListContactsRedirect, NotFoundPage } from './pages/NotFound.tsx';
import { SettingsPage } from './pages/Settings.tsx';
import { WebhooksPage } from './pages/Webhooks.tsx';
import { SignInPage } from './pages/SignIn.tsx';
import { AcceptInvitationPage } from './pages/AcceptInvitation.tsx';
import { ForgotPasswordPage } from './pages/ForgotPassword.tsx';
import { MembersPage } from './pages/Members.tsx';
import { ResetPasswordPage } from './pages/ResetPassword.tsx';
import { SecurityPage } from './pages/Security.tsx';
import { can, type Permission } from './permissions.ts';
import { useSession } from './session.tsx';

// The campaign page carries the chart library, the largest part of the app: loaded when first opened.
const CampaignPage = lazy(() => import('./pages/Campaign.tsx').then((m) => ({ default: m.CampaignPage })));
// D24.8: admins only, loaded when first opened.
const AuditLogPage = lazy(() => import('./pages/AuditLog.tsx').then((m) => ({ default: m.AuditLogPage })));
// D25.8: loaded when first opened, so the main bundle does not carry it.
const TransactionalPage = lazy(() => import('./pages/Transactional.tsx').then((m) => ({ default: m.TransactionalPage })));

// D24.9: an item shows only to a role holding `need` (`*`: admins and owners).
const NAV: { to: string; label: string; need?: Permission }[] = [
  { to: '/overview', label: 'Overview' },
  { to: '/campaigns', label: 'Campaigns', need: 'campaigns.read' },
  // D25.8: messages applications send one at a time (receipts, resets), outside campaigns.
  { to: '/transactional', label: 'Transactional', need: 'campaigns.read' },
  // D22: the template gallery: starters and layouts.
  { to: '/templates', label: 'Templates', need: 'campaigns.read' },
  { to: '/contacts', label: 'Contacts', need: 'contacts.read' },
  { to: '/lists', label: 'Lists', need: 'lists.read' },
  { to: '/segments', label: 'Segments', need: 'lists.read' },
  // D20: sign-up forms, hosted and embeddable.
  { to: '/forms', label: 'Sign-up forms', need: 'lists.read' },
  { to: '/suppressions', label: 'Suppression list', need: 'contacts.read' },
  { to: '/automations', label: 'Automations', need: 'automation.read' },
  { to: '/inbox', label: 'Dev inbox', need: '*' },
  { to: '/keys', label: 'API keys', need: '*' },
  // Not /webhooks: that path is the service's own (providers' bounce and complaint reports, D17.10).
  { to: '/settings/webhooks', label: 'Webhooks', need: '*' },
  // D23: DKIM records and warm-up, set up once per domain like the other settings.
  { to: '/settings/domains', label: 'Sending domains', need: 'campaigns.read' },
  // D24.9: the team, one's own security, and who changed what.
  { to: '/settings/members', label: 'Members' },
  { to: '/settings/security', label: 'Security' },
  { to: '/settings/audit-log', label: 'Audit log', need: '*' },
  { to: '/settings', label: 'Settings' },
];

/** A lazily loaded page, with the loader shown while its code arrives. */
function Lazy({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loader aria-label="Loading" />}>{children}</Suspense>;
}

/** A page the role cannot use says so, for an address typed or bookmarked (its nav item is hidden). */
function Allowed({ need, children }: { need: Permission; children: ReactNode }) {
  const { session } = useSession();
  return can(session, need) ? <>{children}</> : <Text>Your role does not give access to this page. Ask an admin of your account.</Text>;
}

/** D24.3/D24.4: the mailed links' pages, signed in or not (an invitation signs its new member in). */
const PUBLIC_PAGES = ['/invite/', '/reset/', '/forgot-password'];

export function App() {
  const { session, checking } = useSession();
  const location = useLocation();
  if (PUBLIC_PAGES.some((p) => location.pathname.startsWith(p))) {
    return (
      <Routes>
        <Route path="/invite/:token" element={<AcceptInvitationPage />} />
        <Route path="/reset/:token" element={<ResetPasswordPage />} />
        <Route path="/forgot-password" element={<ForgotPasswordPage />} />
        <Route path="*" element={<Navigate to="/signin" replace />} />
      </Routes>
    );
  }
  if (checking) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  if (!session) {
    return (
      <Routes>
        <Route path="/signup" element={<SignInPage mode="signup" />} />
        <Route path="/signup/confirm" element={<ConfirmSignUpPage />} />
        <Route path="/signin" element={<SignInPage mode="signin" />} />
        {/* D24.7: where a refused SSO sign-in lands, with ?error=<code> */}
        <Route path="/login" element={<SignInPage mode="signin" />} />
        <Route path="*" element={<Navigate to="/signin" replace state={{ from: location.pathname }} />} />
      </Routes>
    );
  }
  return <SignedIn />;
}

function SignedIn() {
  const { session, signOut } = useSession();
  const [opened, { toggle, close }] = useDisclosure();
  const location = useLocation();
  // The most specific item holding the path: /settings/webhooks is Webhooks, not Settings.
  const current = NAV.filter((i) => location.pathname === i.to || location.pathname.startsWith(i.to + '/')).sort((a, b) => b.to.length - a.to.length)[0]?.to;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={3}>Sendwell</Title>
          </Group>
          <Group gap="sm" wrap="nowrap">
            <Text size="sm" c="dimmed" visibleFrom="sm">
              {session!.user.email} · {session!.account.name} ({session!.account.plan})
            </Text>
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" aria-label="Main" className="app-navbar">
        <Stack gap={4}>
          {NAV.filter((item) => !item.need || can(session, item.need)).map((item) => (
            <NavLink key={item.to} component={Link} to={item.to} label={item.label} active={item.to === current} onClick={close} />
          ))}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <Routes>
          <Route path="/" element={<Navigate to="/overview" replace />} />
          <Route path="/overview" element={<OverviewPage />} />
          <Route path="/signin" element={<Navigate to="/overview" replace />} />
          <Route path="/login" element={<Navigate to="/overview" replace />} />
          <Route path="/signup" element={<Navigate to="/overview" replace />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="/settings/webhooks" element={<Allowed need="*"><WebhooksPage /></Allowed>} />
          <Route path="/settings/members" element={<MembersPage />} />
          <Route path="/settings/security" element={<SecurityPage />} />
          <Route path="/settings/audit-log" element={<Allowed need="*"><Lazy><AuditLogPage /></Lazy></Allowed>} />
          <Route path="/settings/domains" element={<DomainsPage />} />
          <Route path="/signup/confirm" element={<ConfirmSignUpPage />} />
          <Route path="/keys" element={<Allowed need="*"><KeysPage /></Allowed>} />
          <Route path="/contacts" element={<ContactsPage />} />
          <Route path="/contacts/:email" element={<ContactPage />} />
          <Route path="/lists" element={<ListsPage />} />
          <Route path="/forms" element={<FormsPage />} />
          <Route path="/forms/:id" element={<FormEditorPage />} />
          <Route path="/templates" element={<TemplatesPage />} />
          <Route path="/templates/:id" element={<TemplateEditorPage />} />
          <Route path="/segments" element={<SegmentsPage />} />
          <Route path="/segments/:id" element={<SegmentEditorPage />} />
          <Route path="/suppressions" element={<SuppressionsPage />} />
          <Route path="/campaigns" element={<CampaignsPage />} />
          <Route
            path="/campaigns/:id"
            element={
              <Lazy>
                <CampaignPage />
              </Lazy>
            }
          />
          <Route
            path="/transactional"
            element={
              <Lazy>
                <TransactionalPage />
              </Lazy>
            }
          />
          <Route path="/automations" element={<AutomationsPage />} />
          <Route path="/automations/:id" element={<AutomationEditorPage />} />
          <Route path="/inbox" element={<Allowed need="*"><InboxPage /></Allowed>} />
          {/* Issue 34: the addresses a user would guess lead to the page they mean. */}
          <Route path="/domains" element={<Navigate to="/settings/domains" replace />} />
          <Route path="/members" element={<Navigate to="/settings/members" replace />} />
          <Route path="/security" element={<Navigate to="/settings/security" replace />} />
          <Route path="/audit-log" element={<Navigate to="/settings/audit-log" replace />} />
          <Route path="/api-keys" element={<Navigate to="/keys" replace />} />
          <Route path="/settings/api-keys" element={<Navigate to="/keys" replace />} />
          <Route path="/lists/:id" element={<ListContactsRedirect />} />
          <Route path="*" element={<NotFoundPage />} />
        </Routes>
      </AppShell.Main>
    </AppShell>
  );
}
