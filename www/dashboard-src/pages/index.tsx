// Which merchant page a route shows (#/m/:merchantId/:page/...).
import { Chain } from './chain';
import { Deployments } from './deployments';
import { Holders } from './holders';
import { Keys } from './keys';
import { Members } from './members';
import { Overview } from './overview';
import { PresaleDetail, Presales } from './presales';
import { Settings } from './settings';
import { TokenDetail, Tokens } from './tokens';
import { Webhooks } from './webhooks';

export function MerchantPage({ page, rest, query }: { page: string; rest: string[]; query: URLSearchParams }) {
  switch (page) {
    case 'overview': return <Overview />;
    case 'tokens': return rest[0] ? <TokenDetail address={rest[0]} /> : <Tokens />;
    case 'holders': return <Holders key={query.get('q') ?? ''} initial={query.get('q') ?? ''} />;
    case 'presales': return rest[0] ? <PresaleDetail id={rest[0]} /> : <Presales />;
    case 'deployments': return <Deployments />;
    case 'webhooks': return <Webhooks />;
    case 'chain': return <Chain />;
    case 'keys': return <Keys />;
    case 'settings': return <Settings />;
    case 'members': return <Members />;
    default: return <p role="alert" className="error"><strong>not_found</strong>: no page named {page}.</p>;
  }
}
