export { userModule, userMigrations } from './module.ts';
export { userClientOverHttp, type UserClient } from './client.ts';
export { createUserService, RESET_TOKEN_MINUTES, WRONG_CREDENTIALS, type User, type UserService } from './service.ts';
export { TOKEN_HEADER } from './routes.ts';
export type { AccountStanding, Vip } from './ports.ts';
export { setRoleByEmail, type AdminUser } from './admin.ts';
